/**
 * Fan-out of a process's events to the streams attached to it (Start, Connect), with
 * back-pressure: when any attached stream falls `HIGH_WATER` events behind, the source is paused
 * (the child then blocks on its full pipe), and resumed once every stream is back under
 * `LOW_WATER`. This is what lets a 200 MB output flow without being held in memory.
 *
 * With no stream attached, output is dropped, as envd does: a process keeps running after its
 * client disconnects, and a later Connect sees only what comes after it.
 */

/** Events queued per stream before the source is paused (chunks are at most 64 KiB). */
const HIGH_WATER = 16;
const LOW_WATER = 4;

/** The source's flow switch. */
export interface Flow {
  pause(): void;
  resume(): void;
}

/** One attached stream's queue. `next()` resolves undefined once the subscription is closed. */
export class Subscription<T> {
  private readonly queue: T[] = [];
  private waiter: ((item: T | undefined) => void) | undefined;
  private closed = false;

  constructor(private readonly owner: Fanout<T>) {}

  get backlog(): number {
    return this.queue.length;
  }

  /** Queues an item; ignored after close. */
  push(item: T): void {
    if (this.closed) return;
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter) waiter(item);
    else this.queue.push(item);
  }

  /** The next item, waiting for one if none is queued. */
  next(): Promise<T | undefined> {
    const item = this.queue.shift();
    if (item !== undefined) {
      this.owner.drained();
      return Promise.resolve(item);
    }
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => (this.waiter = resolve));
  }

  /** Detaches from the source; a pending `next()` resolves undefined. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    this.waiter?.(undefined);
    this.waiter = undefined;
    this.owner.detach(this);
  }
}

/** Delivers each published item to every attached subscription. */
export class Fanout<T> {
  private readonly subs = new Set<Subscription<T>>();
  private paused = false;

  constructor(private readonly flow: Flow) {}

  subscribe(): Subscription<T> {
    const sub = new Subscription<T>(this);
    this.subs.add(sub);
    return sub;
  }

  get hasSubscribers(): boolean {
    return this.subs.size > 0;
  }

  /**
   * Delivers an item. `bounded` items (output) count towards back-pressure; the final event is
   * published unbounded so it is never held back.
   */
  publish(item: T, bounded = true): void {
    for (const sub of this.subs) sub.push(item);
    if (!bounded || this.paused) return;
    for (const sub of this.subs) {
      if (sub.backlog >= HIGH_WATER) {
        this.paused = true;
        this.flow.pause();
        return;
      }
    }
  }

  /** Called by a subscription after it handed out an item. */
  drained(): void {
    if (!this.paused) return;
    for (const sub of this.subs) if (sub.backlog > LOW_WATER) return;
    this.paused = false;
    this.flow.resume();
  }

  /** Called by a subscription when it closes. */
  detach(sub: Subscription<T>): void {
    this.subs.delete(sub);
    this.drained();
  }
}
