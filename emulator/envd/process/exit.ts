/**
 * The end event of a process, worded as envd words it: envd reads Go's `os.ProcessState`, so the
 * status text is Go's (`exit status 1`, `signal: killed`), `exitCode` is -1 after a signal,
 * `exited` is true only for a normal exit and `error` (the text of `cmd.Wait()`'s error) is absent
 * on exit 0.
 */
import { constants } from "node:os";

export interface EndInfo {
  exitCode: number;
  exited: boolean;
  status: string;
  error?: string;
}

/** Go's names for Linux signals (`syscall.Signal.String()`), which envd puts in `status`. */
const GO_SIGNAL_NAMES: Readonly<Record<number, string>> = {
  1: "hangup",
  2: "interrupt",
  3: "quit",
  4: "illegal instruction",
  5: "trace/breakpoint trap",
  6: "aborted",
  7: "bus error",
  8: "floating point exception",
  9: "killed",
  10: "user defined signal 1",
  11: "segmentation fault",
  12: "user defined signal 2",
  13: "broken pipe",
  14: "alarm clock",
  15: "terminated",
};

/** Signal number of a Node signal name (`SIGKILL` → 9). */
export function signalNumber(signal: NodeJS.Signals | number): number {
  return typeof signal === "number" ? signal : (constants.signals[signal] ?? 0);
}

/**
 * End info from how the process ended: an exit code, or a signal (name or number; 0 or null
 * means none).
 */
export function endInfo(code: number | null, signal: NodeJS.Signals | number | null): EndInfo {
  const signo = signal === null ? 0 : signalNumber(signal);
  if (signo !== 0) {
    const status = `signal: ${GO_SIGNAL_NAMES[signo] ?? `signal ${signo}`}`;
    return { exitCode: -1, exited: false, status, error: status };
  }
  const exitCode = code ?? 0;
  const status = `exit status ${exitCode}`;
  return exitCode === 0 ? { exitCode, exited: true, status } : { exitCode, exited: true, status, error: status };
}
