/**
 * The last N bytes of a byte stream, in memory that never exceeds N however long the stream runs.
 * Command output can be gigabytes; callers keep the tail for error messages and results, and stream
 * the rest to callbacks.
 */

/** Default size of a command's stdout and stderr tails: 64 KiB each. */
export const DEFAULT_TAIL_BYTES = 64 * 1024;

// Small outputs are the common case: start small and double, up to the capacity.
const INITIAL_BYTES = 4096;

/** A byte ring that keeps the newest `capacity` bytes appended to it. */
export class TailBuffer {
  /** Maximum bytes kept. */
  readonly capacity: number;
  #buf: Uint8Array;
  #start = 0;
  #size = 0;
  #total = 0;

  /** @param capacity bytes to keep (default 65536); must be a positive integer. */
  constructor(capacity: number = DEFAULT_TAIL_BYTES) {
    if (!Number.isInteger(capacity) || capacity <= 0) {
      throw new RangeError(`tail capacity must be a positive whole number of bytes, got ${capacity}`);
    }
    this.capacity = capacity;
    this.#buf = new Uint8Array(Math.min(capacity, INITIAL_BYTES));
  }

  /** Bytes appended since creation, kept or not. */
  get totalBytes(): number {
    return this.#total;
  }

  /** True once older bytes have been dropped. */
  get truncated(): boolean {
    return this.#total > this.#size;
  }

  /** Appends a chunk. Costs O(chunk length), at most two copies; never more than `capacity` bytes held. */
  append(chunk: Uint8Array): void {
    this.#total += chunk.length;
    if (chunk.length === 0) return;
    if (chunk.length >= this.capacity) {
      this.#grow(this.capacity);
      this.#buf.set(chunk.subarray(chunk.length - this.capacity));
      this.#start = 0;
      this.#size = this.capacity;
      return;
    }
    if (this.#size + chunk.length > this.#buf.length) this.#grow(Math.max(this.#buf.length * 2, this.#size + chunk.length));
    this.#write(chunk);
  }

  /** The kept bytes, oldest first (a copy). */
  bytes(): Uint8Array {
    const out = new Uint8Array(this.#size);
    const first = Math.min(this.#size, this.#buf.length - this.#start);
    out.set(this.#buf.subarray(this.#start, this.#start + first));
    out.set(this.#buf.subarray(0, this.#size - first), first);
    return out;
  }

  /**
   * The kept bytes as UTF-8 text. A character cut by the front of the window, or still incomplete at
   * the end, is left out rather than shown as U+FFFD; other invalid bytes become U+FFFD.
   */
  text(): string {
    const bytes = this.bytes();
    const from = this.truncated ? skipContinuation(bytes) : 0;
    return new TextDecoder().decode(bytes.subarray(from, incompleteTailStart(bytes, from)));
  }

  /** Writes into the ring at its end, wrapping and overwriting the oldest bytes when full. */
  #write(chunk: Uint8Array): void {
    const len = this.#buf.length;
    const end = (this.#start + this.#size) % len;
    const first = Math.min(chunk.length, len - end);
    this.#buf.set(chunk.subarray(0, first), end);
    this.#buf.set(chunk.subarray(first), 0);
    const size = this.#size + chunk.length;
    if (size > len) {
      this.#start = (this.#start + size - len) % len;
      this.#size = len;
    } else {
      this.#size = size;
    }
  }

  /** Reallocates to min(capacity, want) bytes, laid out from 0. No-op at capacity. */
  #grow(want: number): void {
    const size = Math.min(this.capacity, want);
    if (size <= this.#buf.length) return;
    const next = new Uint8Array(size);
    next.set(this.bytes());
    this.#buf = next;
    this.#start = 0;
  }
}

/** Index of the first byte that is not a UTF-8 continuation byte (at most 3 skipped). */
function skipContinuation(bytes: Uint8Array): number {
  let i = 0;
  while (i < 3 && i < bytes.length && ((bytes[i] ?? 0) & 0xc0) === 0x80) i++;
  return i;
}

/** Where a multi-byte character that the bytes end in the middle of starts; `bytes.length` if none. */
function incompleteTailStart(bytes: Uint8Array, from: number): number {
  for (let back = 1; back <= 3 && bytes.length - back >= from; back++) {
    const b = bytes[bytes.length - back] ?? 0;
    if ((b & 0xc0) === 0x80) continue;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}
