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

interface Level {
  path: string;
  dirs: Dir[];
  readOnly: boolean;
}

/**
 * Finds `path` (absolute, in the tree) in `layout`. A missing last component is not an error (its
 * dir and name say where it would be made); a missing dir above it is ENOENT, a file there ENOTDIR,
 * a loop of links ELOOP, each naming the tree's path.
 */
export async function locate(layout: Layout, path: string, options: LocateOptions = {}): Promise<Located> {
  const open = new Set<Dir>();
  const keep = async (dirs: Promise<Dir>[]): Promise<Dir[]> => {
    const got = await Promise.allSettled(dirs);
    for (const r of got) if (r.status === "fulfilled") open.add(r.value);
    const failed = got.find((r) => r.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    return got.map((r) => (r as PromiseFulfilledResult<Dir>).value);
  };
  const closeAll = async (except: readonly Dir[] = []) => {
    for (const d of open) if (!except.includes(d)) await d.close();
  };
  try {
    const rootMount = layout.mountAt?.("/");
    const stack: Level[] = [{ path: "/", dirs: await keep([Dir.trusted(layout.root)]), readOnly: rootMount?.readOnly ?? false }];
    let rest = path.split("/").filter((s) => s !== "");
    let hops = 0;
    /** The answer: `dir` (and, at a directory level, its overlay) stay open; every other dir is closed. */
    const done = async (at: string, dir: Dir, name: string, readOnly: boolean, overlay: readonly Dir[] = [dir]): Promise<Located> => {
      const mine = name === "." ? [...new Set([dir, ...overlay])] : [dir];
      await closeAll(mine);
      return {
        path: at, dir, name, overlay: name === "." ? mine : [], readOnly, follow: layout.hostLinks === true,
        close: async () => {
          for (const d of mine) await d.close();
        },
      };
    };
    while (rest.length > 0) {
      const name = rest.shift()!;
      const top = stack[stack.length - 1]!;
      if (name === ".") continue;
      if (name === "..") {
        if (stack.length > 1) stack.pop();
        continue;
      }
      const childPath = posix.join(top.path, name);
      const last = rest.length === 0;
      const mount = layout.mountAt?.(childPath);
      if (mount && "file" in mount) {
        if (!last) throw errnoError("ENOTDIR", childPath);
        const [dir] = await keep([Dir.trusted(dirname(mount.file))]);
        return await done(childPath, dir!, basename(mount.file), mount.readOnly);
      }
      if (mount) {
        const dirs = await keep(mount.dirs.map((d) => Dir.trusted(d)));
        if (last) return await done(childPath, dirs[0]!, ".", mount.readOnly, dirs);
        stack.push({ path: childPath, dirs, readOnly: mount.readOnly });
        continue;
      }
      let found: { dir: Dir; link: boolean } | undefined;
      for (const dir of top.dirs) {
        const st = await lstat(dir.at(name)).catch((err: NodeJS.ErrnoException) => {
          if (err.code === "ENOENT") return undefined;
          throw errnoError(err.code ?? "EIO", childPath);
        });
        if (st) {
          found = { dir, link: st.isSymbolicLink() };
          break;
        }
      }
      if (!found && last) return await done(childPath, top.dirs[0]!, name, top.readOnly);
      if (!found) {
        if (!options.makeParent || top.readOnly) throw errnoError(top.readOnly ? "EROFS" : "ENOENT", childPath);
        await options.makeParent(top.dirs[0]!, name, childPath);
        found = { dir: top.dirs[0]!, link: false };
      }
      if (found.link && (!last || options.followLast) && !layout.hostLinks) {
        if (++hops > MAX_LINKS) throw errnoError("ELOOP", childPath);
        const target = await readlink(found.dir.at(name));
        if (target.startsWith("/")) stack.length = 1;
        rest = [...target.split("/").filter((s) => s !== ""), ...rest];
        continue;
      }
      if (last) return await done(childPath, found.dir, name, top.readOnly);
      // A dir of an overlay: the same name in the dirs below the one that had it joins the level.
      const below = top.dirs.slice(top.dirs.indexOf(found.dir));
      // A file there is ENOTDIR; so is a link swapped in since the lstat (O_NOFOLLOW with O_DIRECTORY).
      const first = await keep([found.dir.sub(name, layout.hostLinks)]).catch((err: NodeJS.ErrnoException) => {
        throw errnoError(err.code === "ENOENT" || err.code === "ELOOP" ? err.code : "ENOTDIR", childPath);
      });
      const others = await Promise.all(below.slice(1).map((d) => keep([d.sub(name, layout.hostLinks)]).catch(() => [])));
      stack.push({ path: childPath, dirs: [...first, ...others.flat()], readOnly: top.readOnly });
    }
    const top = stack[stack.length - 1]!;
    return await done(top.path, top.dirs[0]!, ".", top.readOnly, top.dirs);
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/** Finds a directory (links followed), with every dir of an overlay there: `locate` of `<path>/.`. */
export function locateDir(layout: Layout, path: string, options: Omit<LocateOptions, "followLast"> = {}): Promise<Located> {
  return locate(layout, `${path}/.`, { ...options, followLast: true });
}
