/**
 * A sandbox's commands as the page's route answers them. The program's secrets reach a sandbox as
 * environment variables (a command's `envs`, the sandbox's `envVars`), so none of their values leaves
 * here: a command's environment is given by name only, and where a value of one of them shows in its
 * arguments or output (a script that echoes it, `set -x`), it is replaced by `***`.
 */
import type { SandboxRecord } from "../store/sandbox-records";
import type { LoggedProcess } from "./process-log";
import { OUTPUT_TAIL_BYTES, type OutputPart } from "./output-tail";

/** Shorter values are not hidden: `1`, `true` or `dev` would blank the output for nothing. */
const MIN_HIDDEN_LENGTH = 6;
const HIDDEN = "***";

/** What the page shows of one command. */
export interface ProcessView {
  pid: number;
  cmd: string;
  args: string[];
  tag: string | null;
  cwd: string;
  envNames: string[];
  pty: boolean;
  state: "running" | "exited";
  startedAt: string;
  endedAt: string | null;
  exitCode: number | null;
  status: string | null;
  output: OutputPart[];
  /** Bytes the command wrote; the page keeps the last OUTPUT_TAIL_BYTES of them. */
  outputBytes: number;
  outputTruncated: boolean;
}

/** The views of a sandbox's commands, newest first, with no value of their environments or the sandbox's. */
export function processViews(record: SandboxRecord, processes: LoggedProcess[]): { processes: ProcessView[]; outputTailBytes: number } {
  return { processes: processes.map((p) => viewOf(record, p, hider([...Object.values(record.envVars), ...Object.values(p.envs)]))), outputTailBytes: OUTPUT_TAIL_BYTES };
}

function viewOf(record: SandboxRecord, p: LoggedProcess, hide: (text: string) => string): ProcessView {
  return {
    pid: p.pid, cmd: hide(p.cmd), args: p.args.map(hide), tag: p.tag ?? null, cwd: hide(p.cwd || (record.defaults?.workdir ?? "~")), envNames: Object.keys(p.envs).sort(), pty: p.pty,
    state: p.end ? "exited" : "running",
    startedAt: p.startedAt.toISOString(),
    endedAt: p.endedAt?.toISOString() ?? null,
    exitCode: p.end?.exitCode ?? null,
    status: p.end ? p.end.error ?? p.end.status : null,
    output: p.output.parts().map((part) => ({ stream: part.stream, text: hide(part.text) })),
    outputBytes: p.output.total,
    outputTruncated: p.output.total > p.output.size,
  };
}

/** Replaces every occurrence of each value, the longest first (one value may hold another). */
function hider(values: string[]): (text: string) => string {
  const hidden = [...new Set(values.filter((v) => v.length >= MIN_HIDDEN_LENGTH))].sort((a, b) => b.length - a.length);
  return (text) => hidden.reduce((out, value) => out.split(value).join(HIDDEN), text);
}
