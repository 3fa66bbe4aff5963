/**
 * Connect envelopes (a flags byte, a 4-byte big-endian length, the payload) cut out of a byte stream
 * as it arrives in chunks. An envelope that lies within one chunk is returned as a view of it; only
 * one that straddles chunks is copied (./rpc-stream.ts says why that matters).
 */

/** Envelopes cut from a byte stream: views of the chunks where they can be, copies where they straddle. */
export class EnvelopeCutter {
  readonly #chunks: Uint8Array[] = [];
  #length = 0;

  push(chunk: Uint8Array): void {
    this.#chunks.push(chunk);
    this.#length += chunk.length;
  }

  /** The next whole envelope, or undefined until more bytes come. */
  next(): { flags: number; payload: Uint8Array } | undefined {
    if (this.#length < 5) return undefined;
    const head = this.#take(5, true);
    const size = ((head[1]! << 24) >>> 0) + (head[2]! << 16) + (head[3]! << 8) + head[4]!;
    if (this.#length < 5 + size) return undefined;
    this.#take(5);
    return { flags: head[0]!, payload: this.#take(size) };
  }

  /** Whether bytes are left over: a stream that ends then was cut short. */
  get pending(): boolean {
    return this.#length > 0;
  }

  /** The first `n` bytes; with `peek`, left in place. */
  #take(n: number, peek = false): Uint8Array {
    if (n === 0) return new Uint8Array(0);
    const first = this.#chunks[0]!;
    if (first.length >= n) {
      const out = first.subarray(0, n);
      if (!peek) this.#consume(n);
      return out;
    }
    const out = new Uint8Array(n);
    let at = 0;
    for (const chunk of this.#chunks) {
      const part = chunk.subarray(0, n - at);
      out.set(part, at);
      at += part.length;
      if (at === n) break;
    }
    if (!peek) this.#consume(n);
    return out;
  }

  #consume(n: number): void {
    this.#length -= n;
    while (n > 0) {
      const first = this.#chunks[0]!;
      if (first.length > n) {
        this.#chunks[0] = first.subarray(n);
        return;
      }
      n -= first.length;
      this.#chunks.shift();
    }
  }
}
