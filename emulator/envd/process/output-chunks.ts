/**
 * How much output one data event carries: envd reads a command's stdout and stderr 32 KiB at a time
 * and a terminal 16 KiB at a time, and sends each read as one event (e2b-dev/infra
 * packages/envd/internal/services/process/handler/handler.go: stdChunkSize, ptyChunkSize). Node reads
 * a pipe 64 KiB at a time, so a read is cut to envd's size: clients see the events the service sends.
 */

/** Bytes of one event: of a pipe (stdout, stderr), and of a terminal. */
export const PIPE_EVENT_BYTES = 32 * 1024;
export const PTY_EVENT_BYTES = 16 * 1024;

/** `chunk` cut into events of at most `size` bytes (views, not copies). */
export function* inEvents(chunk: Uint8Array, size: number): Generator<Uint8Array> {
  for (let at = 0; at < chunk.length; at += size) yield chunk.subarray(at, at + size);
}
