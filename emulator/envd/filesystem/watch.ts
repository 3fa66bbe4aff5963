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
import { readdirSync, watch, type FSWatcher } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import { EventType } from "../../../sdk/gen/filesystem/filesystem_pb";
import type { SandboxRuntime } from "../../types";
import { joinSandbox } from "../paths";
import { entryInfo, type EntryInit } from "./entry";

/** One event as FilesystemEvent carries it. */
export interface WatchEvent {
  name: string;
  type: EventType;
  entry?: EntryInit;
}

/** Where and how to watch; `host` must be an existing directory. */
export interface WatchTarget {
  runtime: SandboxRuntime;
  sandbox: string;
  host: string;
  recursive: boolean;
  includeEntry: boolean;
}

/** Fails as envd does when the path is missing or not a directory. */
export async function checkWatchable(target: WatchTarget): Promise<void> {
  const st = await stat(target.host).catch(() => undefined);
  if (!st) throw new ConnectError(`path ${target.sandbox} not found`, Code.NotFound);
  if (!st.isDirectory()) throw new ConnectError(`path ${target.sandbox} not a directory`, Code.InvalidArgument);
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
  private readonly watcher: FSWatcher;
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
    this.present = namesUnder(target.host, target.recursive);
    this.watcher = watch(target.host, { recursive: target.recursive }, (kind, filename) => {
      if (filename !== null && !this.closed) this.classify(kind, filename.toString());
    });
    this.watcher.on("error", () => this.close());
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.watcher.close();
  }

  /** Runs synchronously per event, in the kernel's order: the flip model needs no stat. */
  private classify(kind: string, name: string): void {
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
    let type = kind;
    const host = path.join(this.target.host, name);
    if (type === "change") {
      // A change that did not move the mtime changed the attributes only (inotify's ATTRIB).
      const st = await stat(host).catch(() => undefined);
      const before = this.mtimes.get(name);
      if (st) this.mtimes.set(name, st.mtimeMs);
      type = st && before === st.mtimeMs ? EventType.CHMOD : EventType.WRITE;
    }
    const event: WatchEvent = { name, type };
    if (this.target.includeEntry && type !== EventType.REMOVE && type !== EventType.RENAME) {
      const entry = await entryInfo(this.target.runtime, host, joinSandbox(this.target.sandbox, name)).catch(() => undefined);
      if (entry) event.entry = entry;
    }
    if (!this.closed) this.emit(event);
  }
}
