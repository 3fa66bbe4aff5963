/**
 * Finds a path of a tree (a volume, a sandbox's `/`) on the host the way the tree's own kernel
 * would: the service serves a volume from a chroot (infra: orchestrator/pkg/chrooted) and a sandbox
 * is a VM, so a link is followed INSIDE the tree: an absolute target starts again at the tree's
 * root, a relative one goes on from the link's dir, and `..` stops at the root. Each step holds
 * the directory reached open (dir.ts), so no step can leave the tree, however the tree changes
 * meanwhile. Mounts (a sandbox's volumes and system dirs) are entered as the walk reaches their
 * path; a mount of several dirs is an overlay, the first that has a name winning.
 */
import { lstat, readlink } from "node:fs/promises";
import { basename, dirname, posix } from "node:path";
import { Dir, errnoError } from "./dir";

/** What is mounted at a path of the tree: dirs (an overlay, first wins) or one host file. */
export type Mount = { dirs: readonly string[]; readOnly: boolean } | { file: string; readOnly: boolean };

/** Where a tree's paths lie on the host. */
export interface Layout {
  /** Host dir of the tree's `/`. */
  root: string;
  /** The mount at exactly this path of the tree, if any. */
  mountAt?(path: string): Mount | undefined;
  /** Leave links to the host's kernel (unisolated sandboxes, whose commands see the host anyway). */
  hostLinks?: boolean;
}

/** Where a path of the tree is: its directory, held open, and its name there. Close it after use. */
export interface Located {
  /** The path in the tree with its links followed (the last only when asked). */
  path: string;
  dir: Dir;
  /** The last component's name in `dir`; "." when the path is a directory level (the root, a mount point, a trailing `/.`). */
  name: string;
  /** With name ".", every dir of an overlay at this level, `dir` first. */
  overlay: readonly Dir[];
  /** Under a read-only mount: nothing may be changed. */
  readOnly: boolean;
  /** Links are the host kernel's to follow (see Layout.hostLinks): act without O_NOFOLLOW. */
  follow: boolean;
  close(): Promise<void>;
}

export interface LocateOptions {
  /** Follow a link in the last component too (reading or writing content), as open(2) does. */
  followLast?: boolean;
  /** Makes a missing parent dir (name `name` in `dir`, tree path `path`) instead of failing with ENOENT. */
  makeParent?: (dir: Dir, name: string, path: string) => Promise<void>;
}

/** Linux's limit on links followed in one lookup. */
const MAX_LINKS = 40;

/** A directory level the walk has reached: every dir of an overlay there, first wins. */
interface Level {
  path: string;
  dirs: Dir[];
  readOnly: boolean;
}

/** Where a walk stands: the levels entered, the components still to walk, the links followed so far. */
interface Walk {
  layout: Layout;
  options: LocateOptions;
  held: HeldDirs;
  stack: Level[];
  rest: string[];
  hops: number;
}

/** An entry found at one level: the dir of the overlay that has it, and whether it is a link. */
interface Found {
  dir: Dir;
  link: boolean;
}

/**
 * The dirs a walk holds open. On failure every one is closed; the answer keeps its own open (its
 * dir, and at a directory level its overlay) and closes the rest.
 */
class HeldDirs {
  private readonly open = new Set<Dir>();

  constructor(private readonly follow: boolean) {}

  /** Opens `dirs`, holding each that opened even when another failed, so that it is closed too. */
  async keep(dirs: Promise<Dir>[]): Promise<Dir[]> {
    const got = await Promise.allSettled(dirs);
    for (const r of got) if (r.status === "fulfilled") this.open.add(r.value);
    const failed = got.find((r) => r.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    return got.map((r) => (r as PromiseFulfilledResult<Dir>).value);
  }

  async closeAll(except: readonly Dir[] = []): Promise<void> {
    for (const d of this.open) if (!except.includes(d)) await d.close();
  }

  /** The walk's answer: `dir` (and, at a directory level, its overlay) stay open; every other dir is closed. */
  async answer(at: string, dir: Dir, name: string, readOnly: boolean, overlay: readonly Dir[] = [dir]): Promise<Located> {
    const mine = name === "." ? [...new Set([dir, ...overlay])] : [dir];
    await this.closeAll(mine);
    return {
      path: at, dir, name, overlay: name === "." ? mine : [], readOnly, follow: this.follow,
      close: async () => {
        for (const d of mine) await d.close();
      },
    };
  }
}

const components = (path: string): string[] => path.split("/").filter((s) => s !== "");

/**
 * Finds `path` (absolute, in the tree) in `layout`. A missing last component is not an error (its
 * dir and name say where it would be made); a missing dir above it is ENOENT, a file there ENOTDIR,
 * a loop of links ELOOP, each naming the tree's path.
 */
export async function locate(layout: Layout, path: string, options: LocateOptions = {}): Promise<Located> {
  const held = new HeldDirs(layout.hostLinks === true);
  try {
    const rootMount = layout.mountAt?.("/");
    const root: Level = { path: "/", dirs: await held.keep([Dir.trusted(layout.root)]), readOnly: rootMount?.readOnly ?? false };
    const walk: Walk = { layout, options, held, stack: [root], rest: components(path), hops: 0 };
    while (walk.rest.length > 0) {
      const answer = await step(walk);
      if (answer) return answer;
    }
    const top = walk.stack[walk.stack.length - 1]!;
    return await held.answer(top.path, top.dirs[0]!, ".", top.readOnly, top.dirs);
  } catch (err) {
    await held.closeAll();
    throw err;
  }
}

/** Walks the next component: the answer when it is the last one found, else nothing (the walk goes on). */
async function step(walk: Walk): Promise<Located | undefined> {
  const name = walk.rest.shift()!;
  const top = walk.stack[walk.stack.length - 1]!;
  if (name === ".") return undefined;
  if (name === "..") {
    if (walk.stack.length > 1) walk.stack.pop();
    return undefined;
  }
  const childPath = posix.join(top.path, name);
  const last = walk.rest.length === 0;
  const mount = walk.layout.mountAt?.(childPath);
  if (mount) return enterMount(walk, mount, childPath, last);
  let found = await findEntry(top, name, childPath);
  if (!found && last) return walk.held.answer(childPath, top.dirs[0]!, name, top.readOnly);
  found ??= await makeMissingParent(walk, top, name, childPath);
  if (found.link && (!last || walk.options.followLast) && !walk.layout.hostLinks) {
    await followLink(walk, found.dir, name, childPath);
    return undefined;
  }
  if (last) return walk.held.answer(childPath, found.dir, name, top.readOnly);
  await enterDir(walk, top, found.dir, name, childPath);
  return undefined;
}

/** A mount at `childPath`: a file mount is the answer (it has nothing below); a dir mount is a new level. */
async function enterMount(walk: Walk, mount: Mount, childPath: string, last: boolean): Promise<Located | undefined> {
  if ("file" in mount) {
    if (!last) throw errnoError("ENOTDIR", childPath);
    const [dir] = await walk.held.keep([Dir.trusted(dirname(mount.file))]);
    return walk.held.answer(childPath, dir!, basename(mount.file), mount.readOnly);
  }
  const dirs = await walk.held.keep(mount.dirs.map((d) => Dir.trusted(d)));
  if (last) return walk.held.answer(childPath, dirs[0]!, ".", mount.readOnly, dirs);
  walk.stack.push({ path: childPath, dirs, readOnly: mount.readOnly });
  return undefined;
}

/** The first dir of the level's overlay that has `name`; none is not an error. */
async function findEntry(level: Level, name: string, childPath: string): Promise<Found | undefined> {
  for (const dir of level.dirs) {
    const st = await lstat(dir.at(name)).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return undefined;
      throw errnoError(err.code ?? "EIO", childPath);
    });
    if (st) return { dir, link: st.isSymbolicLink() };
  }
  return undefined;
}

/** A dir missing above the last component: made when the caller asks (and may write), else ENOENT or EROFS. */
async function makeMissingParent(walk: Walk, level: Level, name: string, childPath: string): Promise<Found> {
  if (!walk.options.makeParent || level.readOnly) throw errnoError(level.readOnly ? "EROFS" : "ENOENT", childPath);
  await walk.options.makeParent(level.dirs[0]!, name, childPath);
  return { dir: level.dirs[0]!, link: false };
}

/** Follows a link inside the tree: its target's components are walked next, from the root when absolute. */
async function followLink(walk: Walk, dir: Dir, name: string, childPath: string): Promise<void> {
  if (++walk.hops > MAX_LINKS) throw errnoError("ELOOP", childPath);
  const target = await readlink(dir.at(name));
  if (target.startsWith("/")) walk.stack.length = 1;
  walk.rest = [...components(target), ...walk.rest];
}

/** Enters the dir `name` as a new level, held open. */
async function enterDir(walk: Walk, level: Level, dir: Dir, name: string, childPath: string): Promise<void> {
  // A dir of an overlay: the same name in the dirs below the one that had it joins the level.
  const below = level.dirs.slice(level.dirs.indexOf(dir));
  // A file there is ENOTDIR; so is a link swapped in since the lstat (O_NOFOLLOW with O_DIRECTORY).
  const first = await walk.held.keep([dir.sub(name, walk.layout.hostLinks)]).catch((err: NodeJS.ErrnoException) => {
    throw errnoError(err.code === "ENOENT" || err.code === "ELOOP" ? err.code : "ENOTDIR", childPath);
  });
  const others = await Promise.all(below.slice(1).map((d) => walk.held.keep([d.sub(name, walk.layout.hostLinks)]).catch(() => [])));
  walk.stack.push({ path: childPath, dirs: [...first, ...others.flat()], readOnly: level.readOnly });
}

/** Finds a directory (links followed), with every dir of an overlay there: `locate` of `<path>/.`. */
export function locateDir(layout: Layout, path: string, options: Omit<LocateOptions, "followLast"> = {}): Promise<Located> {
  return locate(layout, `${path}/.`, { ...options, followLast: true });
}
