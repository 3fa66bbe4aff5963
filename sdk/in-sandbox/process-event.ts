/**
 * One event of a process stream, as the sdk reports it. Output is raw bytes; `run` decodes it. Its own
 * module: the process client and the run collector both need it, and neither imports the other's type.
 */
export type ProcessEvent =
  | { type: "start"; pid: number }
  | { type: "stdout" | "stderr" | "pty"; data: Uint8Array }
  /** `exitCode` is -1 when a signal ended the process; `exited` is true only for a normal exit. */
  | { type: "end"; exitCode: number; exited: boolean; status: string; error?: string | undefined }
  | { type: "keepalive" };
