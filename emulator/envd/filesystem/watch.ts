/**
 * Watching a sandbox directory, as envd's WatchDir and its polling watchers do (envd uses
 * fsnotify, i.e. inotify). Events name the path relative to the watched dir (`sub/file` when
 * recursive) with envd's types: CREATE, WRITE, REMOVE, RENAME, CHMOD.
 *
 * Node's `fs.watch` folds inotify's events into `rename` and `change`, so the type is recovered
 * here, without racing the disk: each `rename` flips a name between present and gone (starting
 * from a listing), so it is a CREATE or a REMOVE; a REMOVE followed at once by a CREATE is a move
 * (inotify's MOVED_FROM/MOVED_TO pair, which fsnotify reports as RENAME of the old name and CREATE
 * of the new); a `change` that moved the mtime is a WRITE, one that did not is a CHMOD (ATTRIB).
 */
import { readdirSync } from "node:fs";
import { lstat } from "node:fs/promises";
import path from "node:path";
import { EventType } from "../../../sdk/gen/filesystem/filesystem_pb";
import type { Located } from "../../confined/walk";
import type { SandboxRuntime } from "../../types";
import { locateIn, using } from "../links";
import { joinSandbox } from "../paths";
import { entryInfo, type EntryInit } from "./entry";
import { TreeWatch } from "./tree-watch";

/** One event as FilesystemEvent carries it. */
export interface WatchEvent {
  name: string;
  type: EventType;
  entry?: EntryInit;
}

/** Where and how to watch: the sandbox path asked for, and the dir found there, held open while the watch runs. */
export interface WatchTarget {
  runtime: SandboxRuntime;
  sandbox: string;
  found: Located;
  recursive: boolean;
  includeEntry: boolean;
}

/** The names under `dir` (relative; all levels when recursive) at the start of a watch. */
function namesUnder(dir: string, recursive: boolean): Set<string> {
  try {
    return new Set(readdirSync(dir, { recursive }).map(String));
  } catch {
    return new Set();
  }
}

/** A running watch of one directory; `close()` stops it. */
export class DirWatch {
  private readonly watcher: TreeWatch;
  /** What exists now, as the events tell it: each `rename` flips a name in or out. */
  private readonly present: Set<string>;
  private readonly mtimes = new Map<string, number>();
  /** A name that just went out, held to see whether the very next event is its rename's other half. */
  private vanished: string | undefined;
  /** Events are finished (stat, entry) one after the other, so they keep the kernel's order. */
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly target: WatchTarget,
    private readonly emit: (event: WatchEvent) => void,
  ) {
    // The dir is named through its open fd (../../confined/dir.ts), so the watch is on the dir that
    // was found, whatever its path leads to by now.
    const host = target.found.dir.self;
    this.present = namesUnder(host, target.recursive);
    try {
      this.watcher = new TreeWatch(host, target.recursive, (kind, name) => {
        if (!this.closed) this.classify(kind, name);
      }, () => this.close());
    } catch (err) {
      void target.found.close();
      throw err;
    }
  }

  /**
   * Resolves once every event the kernel had queued for this watch when it was called is emitted.
   * envd's fsnotify reads inotify on its own goroutine, so a poll made after a write has returned
   * finds that write's events (the Python SDK's `watch_dir` polls right after a write). Here, the
   * kernel queued them during the write's syscalls, before its answer was sent: the poll phase of
   * the event loop that read this request saw libuv's inotify fd readable too, so after one
   * `setImmediate` they have reached `classify`; a second lets a held name's REMOVE out; then the
   * per-event queue (stat, entry) drains. Nothing is emitted twice: this only waits.
   */
  async settled(): Promise<void> {
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    let queue: Promise<void>;
    do {
      queue = this.queue;
      await queue;
    } while (queue !== this.queue);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.watcher.close();
    void this.target.found.close();
  }

  /** Runs synchronously per event, in the kernel's order: the flip model needs no stat. */
  private classify(kind: string, name: string): void {
    // In a directory just watched (./tree-watch.ts): new unless its creation was seen already.
    if (kind === "found") {
      if (this.present.has(name)) return;
      kind = "rename";
    }
    const held = this.vanished;
    this.vanished = undefined;
    if (kind === "rename" && !this.present.has(name)) {
      this.present.add(name);
      if (held !== undefined) this.enqueue(held, EventType.RENAME);
      return this.enqueue(name, EventType.CREATE);
    }
    if (held !== undefined) this.enqueue(held, EventType.REMOVE);
    if (kind === "rename") {
      this.present.delete(name);
      this.mtimes.delete(name);
      this.vanished = name;
      // Nothing followed in this batch of events: it was a removal.
      setImmediate(() => {
        if (this.vanished !== name) return;
        this.vanished = undefined;
        this.enqueue(name, EventType.REMOVE);
      });
      return;
    }
    this.enqueue(name, "change");
  }

  private enqueue(name: string, type: EventType | "change"): void {
    this.queue = this.queue.then(() => this.send(name, type));
  }

  private async send(name: string, kind: EventType | "change"): Promise<void> {
    // Once closed, the watched dir's fd is too (and its number may be another file's).
    if (this.closed) return;
    let type = kind;
    const sandboxPath = joinSandbox(this.target.sandbox, name);
    if (type === "change") {
      // A change that did not move the mtime changed the attributes only (inotify's ATTRIB).
      const st = await lstat(path.join(this.target.found.dir.self, name)).catch(() => undefined);
      const before = this.mtimes.get(name);
      if (st) this.mtimes.set(name, st.mtimeMs);
      type = st && before === st.mtimeMs ? EventType.CHMOD : EventType.WRITE;
    }
    const event: WatchEvent = { name, type };
    if (this.target.includeEntry && type !== EventType.REMOVE && type !== EventType.RENAME) {
      // Found again in the sandbox's tree: a name the event reports may be a link by now.
      const entry = await using(locateIn(this.target.runtime, sandboxPath), (at) => entryInfo(this.target.runtime, at, sandboxPath)).catch(() => undefined);
      if (entry) event.entry = entry;
    }
    if (!this.closed) this.emit(event);
  }
}
