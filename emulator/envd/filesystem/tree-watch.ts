/**
 * `fs.watch`'s raw events (`rename` / `change`, a name relative to the root) for a directory and,
 * when recursive, every directory under it: one inotify watch per directory, as envd's fsnotify
 * watcher adds them. Node's own recursive watch on Linux also watches each *file*, and only once
 * it has seen the file's creation, so the chown and first write of a new file in a subdirectory
 * are lost when they come before that watch (E2B's Python suite counts three events there). A
 * directory's watch reports its children's events itself, so none is lost here; a subdirectory
 * made after the start is watched once its creation is seen, and what is already in it by then is
 * reported as `found`, as Node reports it created.
 */
import { lstatSync, readdirSync, watch, type FSWatcher } from "node:fs";
import path from "node:path";

export type RawListener = (kind: string, name: string) => void;

export class TreeWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private closed = false;

  /** `root` is a path for the OS; throws when the root itself cannot be watched. */
  constructor(
    private readonly root: string,
    private readonly recursive: boolean,
    private readonly listener: RawListener,
    private readonly onRootError: () => void,
  ) {
    this.watchDir("");
    if (recursive) for (const name of readdirSync(root, { recursive: true }).map(String)) if (this.isDir(name)) this.watchDir(name);
  }

  close(): void {
    this.closed = true;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  private watchDir(rel: string): void {
    const watcher = watch(rel === "" ? this.root : path.join(this.root, rel), (kind, filename) => {
      if (filename === null || this.closed) return;
      const name = rel === "" ? filename.toString() : `${rel}/${filename.toString()}`;
      // libuv names an event on the watched dir itself (its removal, a chmod) by the dir's own
      // name; its parent's watch reports it already, as a child's event. (A child of the same
      // name that is gone is missed with it: the two cannot be told apart.)
      if (rel !== "" && filename.toString() === path.basename(rel) && !this.exists(name)) return;
      this.listener(kind, name);
      if (this.recursive && kind === "rename") this.follow(name);
    });
    watcher.on("error", () => (rel === "" ? this.onRootError() : this.unwatch(rel)));
    this.watchers.set(rel, watcher);
  }

  /** A name came or went: watch it if it is a new directory (and report what it holds), or drop its watches. */
  private follow(name: string): void {
    if (!this.isDir(name)) return this.unwatch(name);
    if (this.watchers.has(name)) return;
    try {
      this.watchDir(name);
    } catch {
      return; // gone again already: its removal is reported by its parent's watch
    }
    for (const child of readdirSync(path.join(this.root, name), { withFileTypes: true, recursive: false }).map((d) => d.name)) {
      if (this.closed) return;
      const inner = `${name}/${child}`;
      // "found": present now, whether or not its own creation is also reported.
      this.listener("found", inner);
      this.follow(inner);
    }
  }

  private unwatch(name: string): void {
    for (const [rel, watcher] of this.watchers) {
      if (rel === "" || (rel !== name && !rel.startsWith(`${name}/`))) continue;
      watcher.close();
      this.watchers.delete(rel);
    }
  }

  private exists(name: string): boolean {
    try {
      lstatSync(path.join(this.root, name));
      return true;
    } catch {
      return false;
    }
  }

  /** A directory, not a link to one: a link's target is not under the watch. */
  private isDir(name: string): boolean {
    try {
      return lstatSync(path.join(this.root, name)).isDirectory();
    } catch {
      return false;
    }
  }
}
