/**
 * The polling watchers of one sandbox (CreateWatcher / GetWatcherEvents / RemoveWatcher): each a
 * directory watch whose events wait here until the next poll. Closed with the sandbox.
 */
import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { DirWatch, type WatchEvent, type WatchTarget } from "./watch";

/** Most events a polling watcher keeps between two polls; older ones are dropped first. */
const MAX_PENDING_EVENTS = 10_000;

/** The polling watchers of one sandbox. */
export class WatcherRegistry {
  private readonly watchers = new Map<string, { watch: DirWatch; events: WatchEvent[] }>();

  add(target: WatchTarget): string {
    const id = randomUUID();
    const events: WatchEvent[] = [];
    const watch = new DirWatch(target, (e) => {
      events.push(e);
      if (events.length > MAX_PENDING_EVENTS) events.shift();
    });
    this.watchers.set(id, { watch, events });
    return id;
  }

  /** The events since the last call, those of writes finished before it included; not_found for an unknown id. */
  async take(id: string): Promise<WatchEvent[]> {
    const watcher = this.get(id);
    await watcher.watch.settled();
    return watcher.events.splice(0);
  }

  remove(id: string): void {
    this.get(id).watch.close();
    this.watchers.delete(id);
  }

  closeAll(): void {
    for (const { watch } of this.watchers.values()) watch.close();
    this.watchers.clear();
  }

  private get(id: string) {
    const watcher = this.watchers.get(id);
    if (!watcher) throw new ConnectError(`watcher with id ${id} not found`, Code.NotFound);
    return watcher;
  }
}
