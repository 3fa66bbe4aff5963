/**
 * A command run in a real pseudo-terminal (`@lydell/node-pty`), for Start requests with `pty` set.
 * Output arrives as raw bytes (`data.pty`); input goes to the terminal; Update resizes it. Like the
 * piped case it runs in the sandbox's namespaces when there are some, in its own session (node-pty
 * calls setsid), so a kill reaches the whole group.
 */
import { closeSync, constants, openSync } from "node:fs";
import { spawn as spawnTerminal, type IPty } from "@lydell/node-pty";
import { endInfo } from "./exit";
import { hostCommand, signalGroup, type ChildControl, type ChildSink, type SpawnSpec } from "./child";
import { inEvents, PTY_EVENT_BYTES } from "./output-chunks";
import { killLaunchedChild } from "./launched-kill";
import { pidInNamespace } from "./sandbox-pid";

/**
 * Keeps the terminal's slave side open in the emulator until the child has exited. Otherwise
 * node-pty closes the master as soon as the child closes its side, and the kernel's hangup can
 * reach the child while it is still exiting: `cat` ended by Ctrl-D would now and then report
 * `signal: hangup`. envd closes its terminal only after the child was reaped; so does this. The
 * cost: node-pty then ends the session on its 200 ms exit timer.
 */
function holdTerminal(term: IPty): number | undefined {
  const slavePath = (term as unknown as { ptsName?: string }).ptsName;
  if (!slavePath) return undefined;
  try {
    return openSync(slavePath, constants.O_RDWR | constants.O_NOCTTY);
  } catch {
    return undefined;
  }
}

/** Starts a child in a PTY of `spec.pty`'s size. */
export function spawnPty(spec: SpawnSpec, sink: ChildSink): ChildControl {
  const size = spec.pty ?? { cols: 80, rows: 24 };
  const command = hostCommand(spec);
  const term = spawnTerminal(command.file, command.args, {
    // node-pty sets TERM from `name`; keep the caller's TERM (the SDK sends xterm-256color).
    name: spec.env.TERM ?? "xterm",
    // A zero size (an unset field) is not a terminal size; fall back to the classic 80x24.
    cols: size.cols || 80,
    rows: size.rows || 24,
    cwd: command.cwd,
    env: spec.env,
    // null: deliver raw bytes, not decoded strings (output may split UTF-8 sequences).
    encoding: null,
  });
  const pid = term.pid;
  const slave = holdTerminal(term);
  term.onData((chunk) => {
    for (const event of inEvents(chunk as unknown as Buffer, PTY_EVENT_BYTES)) sink.output("pty", event);
  });
  let exited = false;
  let killAfterExit = false;
  term.onExit(({ exitCode, signal }) => {
    exited = true;
    if (killAfterExit) signalGroup(pid, "SIGKILL");
    if (slave !== undefined) closeSync(slave);
    sink.exit(endInfo(exitCode, signal ?? null));
  });
  return {
    pid,
    sandboxPid: spec.launch ? pidInNamespace(pid, pid) : Promise.resolve(pid),
    isPty: true,
    pause: () => term.pause(),
    resume: () => term.resume(),
    writeStdin: () =>
      Promise.reject(new Error("tty assigned to process — input should be written to the pty, not the stdin")),
    closeStdin: () => {
      throw new Error("cannot close stdin for PTY process — send Ctrl+D (0x04) instead");
    },
    // The typings say string, but the pty socket takes bytes as they are; a string would re-encode.
    writePty: (data) => term.write(Buffer.from(data) as unknown as string),
    resize: (cols, rows) => term.resize(cols, rows),
    // As for a piped command (./launched-kill.ts): the command first, then the rest of the group.
    signal: (signal) => {
      if (signal === "SIGKILL" && spec.launch && !exited && killLaunchedChild(pid)) killAfterExit = true;
      else signalGroup(pid, signal);
    },
  };
}
