/** sdk/transport/readable-chunks.ts: chunks handed on as received, never joined, with the sender held back. */
import { setTimeout as sleep } from "node:timers/promises";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { chunksOf } from "../../sdk/transport/readable-chunks";

describe("chunksOf", () => {
  it("hands on each chunk as it was pushed, where the stream's own iterator joins what waits", async () => {
    const pushed = [Buffer.from("ab"), Buffer.from("cd"), Buffer.from("ef")];
    const make = () => {
      const stream = new Readable({ read() {} });
      for (const chunk of pushed) stream.push(chunk);
      stream.push(null);
      return stream;
    };
    const ours: Uint8Array[] = [];
    for await (const chunk of chunksOf(make())) ours.push(chunk);
    expect(ours).toHaveLength(3);
    ours.forEach((chunk, i) => expect(chunk).toBe(pushed[i]));
    // What the change avoids: Readable's iterator reads all that is buffered as one new buffer.
    const joined: Uint8Array[] = [];
    for await (const chunk of make()) joined.push(chunk as Uint8Array);
    expect(joined).toEqual([Buffer.from("abcdef")]);
  });

  it("holds a fast sender back while the reader is slow", async () => {
    let produced = 0;
    const stream = new Readable({
      highWaterMark: 4,
      read() {
        // Ends after 10 000 chunks, so that a reader that does not hold it back fails here, not out of memory.
        this.push(++produced > 10_000 ? null : Buffer.alloc(1));
      },
    });
    let taken = 0;
    for await (const _ of chunksOf(stream)) {
      await sleep(20);
      if (++taken === 5) break;
    }
    // Unheld, a flowing stream produces all 10 000 in these 100 ms.
    expect(produced).toBeLessThan(20);
    expect(stream.listenerCount("data")).toBe(0);
    stream.destroy();
  });

  it("delivers what arrived, then throws the stream's error", async () => {
    const stream = new Readable({ read() {} });
    stream.push(Buffer.from("x"));
    const got: string[] = [];
    const failed = (async () => {
      for await (const chunk of chunksOf(stream)) {
        got.push(Buffer.from(chunk).toString());
        stream.destroy(new Error("socket hang up"));
      }
    })();
    await expect(failed).rejects.toThrow("socket hang up");
    expect(got).toEqual(["x"]);
  });

  it("ends when the stream is closed without an end", async () => {
    const stream = new Readable({ read() {} });
    setTimeout(() => stream.destroy(), 10);
    const got: Uint8Array[] = [];
    for await (const chunk of chunksOf(stream)) got.push(chunk);
    expect(got).toEqual([]);
  });
});
