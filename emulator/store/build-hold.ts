/**
 * Keeps template builds from ending until released: a build runs its steps, then stays `building`
 * before its last action (`ready`) while the hold is on. For tests that must find a build still
 * running (an `up` killed during it, a context changed while it runs) however slow the machine is,
 * without a build delay long enough for the slowest machine, which every faster one then waits out.
 */
export class BuildHold {
  private waiters: (() => void)[] = [];

  constructor(private held: boolean) {}

  /** Resolves at once when the hold is off, else once it is released. */
  passed(): Promise<void> {
    return this.held ? new Promise((resolve) => this.waiters.push(resolve)) : Promise.resolve();
  }

  /** Turns the hold on: builds that reach their end from now on wait there. */
  hold(): void {
    this.held = true;
  }

  /** Turns the hold off: held builds go on to their end, later ones are not held. */
  release(): void {
    this.held = false;
    for (const resume of this.waiters.splice(0)) resume();
  }
}
