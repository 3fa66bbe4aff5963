/**
 * A command run with pipes (the non-PTY case): inside the sandbox's namespaces through `nsenter`
 * (spec.launch), or, without isolation, as a host process with the emulator's own rights, where
 * only its cwd, HOME and environment point into the sandbox's data dir.
 *
 * The command is started through `/bin/sh -c 'exec "$@"'`, as envd wraps its commands in a shell:
 * a missing binary then ends with the shell's exit 127 and message instead of failing the call.
 * It runs in its own process group (detached) so a kill also reaches what it started; otherwise a
 * killed `bash -c` would leave its children running on the host.
 */
import { spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { Code, ConnectError } from "@connectrpc/connect";
import { endInfo, type EndInfo } from "./exit";
import { inEvents, PIPE_EVENT_BYTES } from "./output-chunks";
import { killLaunchedChild } from "./launched-kill";
import { reportedPid } from "./sandbox-pid";

export type OutputKind = "stdout" | "stderr" | "pty";

/** What to run; paths are host paths. */
export interface SpawnSpec {
  cmd: string;
  args: string[];
  /** Host directory (without `launch`). */
  cwd: string;
  /** The full argv when the command runs inside the sandbox's namespaces (cwd, wrapper included). */
  launch?: { file: string; args: string[]; reportsPid?: true };
  /** Without `launch`: a command that execs the wrapper (e.g. `prlimit ... --`). */
  prefix?: string[];
  env: Record<string, string>;
  /** Keep stdin open as a pipe (else it reads /dev/null). Ignored for a PTY. */
  stdin: boolean;
  pty?: { cols: number; rows: number };
}

/** Where a child's output and end go. */
export interface ChildSink {
  output(kind: OutputKind, data: Uint8Array): void;
  exit(end: EndInfo): void;
}

/** Control of a running child, the same for pipes and PTYs. Errors carry envd's wording. */
export interface ChildControl {
  /** The host's pid of what was spawned: what signals go to. */
  readonly pid: number;
  /** The command's pid inside the sandbox (./sandbox-pid.ts). */
  readonly sandboxPid: Promise<number>;
  readonly isPty: boolean;
  pause(): void;
  resume(): void;
  writeStdin(data: Uint8Array): Promise<void>;
  closeStdin(): void;
  writePty(data: Uint8Array): void;
  resize(cols: number, rows: number): void;
  /** Signals the process group; after SIGKILL/SIGTERM the end no longer waits for the pipes. */
  signal(signal: "SIGKILL" | "SIGTERM"): void;
}

/** The shell wrapper's argv for a command. */
export function wrapperArgs(spec: SpawnSpec): string[] {
  return ["-c", 'exec "$@"', "--", spec.cmd, ...spec.args];
}

/** What the host starts for a spec: the namespace launcher, or the shell wrapper in the host's cwd. */
export function hostCommand(spec: SpawnSpec): { file: string; args: string[]; cwd: string } {
  if (spec.launch) return { ...spec.launch, cwd: "/" };
  const [file, ...args] = [...(spec.prefix ?? []), "/bin/sh", ...wrapperArgs(spec)] as [string, ...string[]];
  return { file, args, cwd: spec.cwd };
}

/** Sends a signal to a process group, or to the process alone if it has no group of its own. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone: nothing to signal.
    }
  }
}

/** Starts a piped child. Throws invalid_argument if it cannot be started. */
export function spawnPiped(spec: SpawnSpec, sink: ChildSink): ChildControl {
  const command = hostCommand(spec);
  const reports = spec.launch?.reportsPid === true;
  const child = spawn(command.file, command.args, {
    cwd: command.cwd,
    env: spec.env,
    stdio: [spec.stdin ? "pipe" : "ignore", "pipe", "pipe", ...(reports ? ["pipe" as const] : [])],
    detached: true,
  });
  const pid = child.pid;
  if (pid === undefined) {
    throw new ConnectError(`error starting process '${[spec.cmd, ...spec.args].join(" ")}'`, Code.InvalidArgument);
  }
  const outputs = [child.stdout, child.stderr] as [Readable, Readable];
  outputs[0].on("data", (chunk: Buffer) => {
    for (const event of inEvents(chunk, PIPE_EVENT_BYTES)) sink.output("stdout", event);
  });
  outputs[1].on("data", (chunk: Buffer) => {
    for (const event of inEvents(chunk, PIPE_EVENT_BYTES)) sink.output("stderr", event);
  });
  let killed = false;
  let exited = false;
  const stopOutput = () => outputs.forEach((s) => s.destroy());
  child.on("exit", () => {
    exited = true;
    // After a kill envd stops waiting for the pipes (a grandchild may still hold them open).
    if (killed) stopOutput();
  });
  child.on("close", (code, signal) => sink.exit(endInfo(code, signal)));
  const report = child.stdio[3] as Readable | null | undefined;
  const sandboxPid = reports && report ? reportedPid(report, pid) : Promise.resolve(pid);
  let inSandbox = pid;
  void sandboxPid.then((p) => (inSandbox = p));
  return {
    pid,
    sandboxPid,
    isPty: false,
    pause: () => outputs.forEach((s) => s.pause()),
    resume: () => outputs.forEach((s) => s.resume()),
    ...stdinControl(() => inSandbox, child.stdin ?? undefined),
    writePty: () => {
      throw new Error("tty not assigned to process — input should be written to the stdin, not the tty");
    },
    resize: () => {
      throw new Error("tty not assigned to process");
    },
    signal: (signal) => {
      killed = true;
      // In a sandbox, a SIGKILL takes the command first and the rest of the group once nsenter
      // reaped it (./launched-kill.ts). The group outlives its leader while members remain.
      if (signal === "SIGKILL" && spec.launch && !exited && killLaunchedChild(pid)) child.once("exit", () => signalGroup(pid, signal));
      else signalGroup(pid, signal);
      if (exited) stopOutput();
    },
  };
}

/** Writing to and closing a child's stdin pipe (absent when the child reads /dev/null). */
function stdinControl(pid: () => number, pipe: Writable | undefined): Pick<ChildControl, "writeStdin" | "closeStdin"> {
  let stdin = pipe;
  // A write to a child that exited fails with EPIPE; the write's callback reports it.
  stdin?.on("error", () => undefined);
  return {
    writeStdin: (data) => {
      const open = stdin;
      if (!open || open.destroyed) return Promise.reject(new Error("stdin not enabled or closed"));
      return new Promise<void>((resolve, reject) =>
        open.write(data, (err) => (err ? reject(new Error(`error writing to stdin of process '${pid()}': ${err.message}`)) : resolve())),
      );
    },
    closeStdin: () => {
      stdin?.end();
      stdin = undefined;
    },
  };
}
