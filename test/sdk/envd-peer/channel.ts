/**
 * An async queue: producers push, one consumer iterates. `onDrain` fires when the consumer has
 * emptied it, so a producer that paused (backpressure) can resume; the peer must not buffer a
 * command's whole output, or memory tests would measure the peer instead of the client.
 */
export class Channel<T> implements AsyncIterable<T> {
  #items: T[] = [];
  #waiter: (() => void) | undefined;
  #closed = false;
  #error: unknown;

  constructor(private readonly onDrain?: () => void) {}

  get size(): number {
    return this.#items.length;
  }

  push(item: T): void {
    if (this.#closed) return;
    this.#items.push(item);
    this.#wake();
  }

  close(): void {
    this.#closed = true;
    this.#wake();
  }

  fail(error: unknown): void {
    if (this.#closed) return;
    this.#error = error;
    this.close();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const item = this.#items.shift();
      if (item !== undefined) {
        if (this.#items.length === 0) this.onDrain?.();
        yield item;
        continue;
      }
      if (this.#error !== undefined) throw this.#error;
      if (this.#closed) return;
      await new Promise<void>((resolve) => (this.#waiter = resolve));
    }
  }

  #wake(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }
}
