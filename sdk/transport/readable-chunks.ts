/**
 * The chunks of a readable stream one by one, as the stream received them. A readable's own async
 * iterator reads all that is buffered at once, and when more than one chunk waits it joins them
 * into a fresh buffer: on a fast stream that is a copy of most of the bytes, and garbage that
 * raises the process's peak memory. Here each chunk is handed on as it is, and the stream is paused
 * while one waits to be taken, so it holds back the sender as the iterator does.
 */
import type { Readable } from "node:stream";

export async function* chunksOf(stream: Readable): AsyncGenerator<Uint8Array> {
  const waiting: Uint8Array[] = [];
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const onData = (chunk: Uint8Array) => {
    waiting.push(chunk);
    stream.pause();
    notify();
  };
  const onEnd = () => {
    ended = true;
    notify();
  };
  const onError = (err: unknown) => {
    failure = err;
    notify();
  };
  stream.on("data", onData).once("end", onEnd).once("error", onError).once("close", onEnd);
  try {
    for (;;) {
      const chunk = waiting.shift();
      if (chunk) {
        if (waiting.length === 0) stream.resume();
        yield chunk;
        continue;
      }
      if (failure !== undefined) throw failure;
      if (ended) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    stream.off("data", onData).off("end", onEnd).off("error", onError).off("close", onEnd);
  }
}
