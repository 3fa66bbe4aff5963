/**
 * The file side of the volume content API: a `path` query parameter (absolute or not, always inside
 * the volume) found in the volume's host directory, and the VolumeEntryStat of what is there.
 *
 * Links that sandboxes made in the volume are followed inside the volume, never by the OS, as the
 * service's chroot follows them (../confined/walk.ts): this API runs with the emulator's rights
 * (root, on a machine that isolates sandboxes), and a link to `/etc` must not let a volume token
 * change the host's `/etc`. An absolute target names a path of the volume, so a link to a host
 * path finds nothing (404), whatever the host has there.
 */
import type { BigIntStats } from "node:fs";
import { readdir, readlink } from "node:fs/promises";
import { posix } from "node:path";
import type { Dir } from "../confined/dir";
import { statAt } from "../confined/ops";
import { locate, type LocateOptions, type Located } from "../confined/walk";
import { ApiError } from "../http";

/** A request's path in a volume. */
export interface VolumeRequest {
  /** Clean, absolute, inside the volume: `/`, `/data/a.txt`. */
  path: string;
  hostDir: string;
  /**
   * With isolated sandboxes, the host id that stands for id 0 inside them: owners are shown and
   * set as the sandboxes see them (uid 1000 is host idBase + 1000). Undefined: ids as they are.
   */
  idBase?: number;
}

/** Where a path was found: `path` with its links followed, and its entry held by its open dir. */
export type VolumeEntry = Pick<Located, "dir" | "name"> & { path: string; idBase?: number };

/** An owner id as a sandbox sees it. */
function inside(id: number, idBase: number | undefined): number {
  return idBase !== undefined && id >= idBase && id < idBase + 65_536 ? id - idBase : id;
}

/** `raw` as a clean absolute path of the volume; a `..` above its root is a 400. */
export function requestedPath(raw: string | null): string {
  if (raw === null || raw === "") throw new ApiError(400, 'parameter "path" in query has an error: value is required but missing');
  const parts: string[] = [];
  for (const part of raw.split("/")) {
    if (part === "" || part === ".") continue;
    if (part !== "..") parts.push(part);
    else if (parts.pop() === undefined) throw new ApiError(400, `path '${raw}' is outside the volume`);
  }
  return `/${parts.join("/")}`;
}

/**
 * Finds the request's path in the volume (see the file comment); close `located` after use. A dir
 * missing above it is a 404 (`missing` names the answer's message), a loop of links a 400.
 */
export async function find(req: VolumeRequest, options: LocateOptions, missing = `path '${req.path}' not found`): Promise<Located> {
  return locate({ root: req.hostDir }, req.path, options).catch((err: NodeJS.ErrnoException) => {
    throw asApiError(err, req.path, missing);
  });
}

/** The API's answer for an error of the file system (never naming a host path). */
export function asApiError(err: NodeJS.ErrnoException, path: string, missing = `path '${path}' not found`): Error {
  if (err instanceof ApiError) return err;
  if (err.code === "ENOENT" || err.code === "ENOTDIR") return new ApiError(404, missing);
  if (err.code === "ELOOP") return new ApiError(400, `path '${path}': too many levels of symbolic links`);
  if (err.code === "EBUSY") return new ApiError(400, `path '${path}' is the volume's root`);
  return new ApiError(500, `cannot complete the request for '${path}': ${err.code ?? err.message}`);
}

/** The entry of a located path, for stat answers. */
export function entryOf(found: Located, idBase: number | undefined): VolumeEntry {
  return { dir: found.dir, name: found.name, path: found.path, ...(idBase === undefined ? {} : { idBase }) };
}

/** VolumeEntryStat of the spec: times in RFC 3339, `mode` the permission bits, `target` for symlinks. */
export async function entryStat(at: VolumeEntry): Promise<Record<string, unknown>> {
  const st = await statAt({ ...at, follow: false }, { bigint: true });
  if (!st) throw new ApiError(404, `path '${at.path}' not found`);
  return statBody(at, st, st.isSymbolicLink() ? await readlink(at.dir.at(at.name)) : undefined);
}

function statBody(at: VolumeEntry, st: BigIntStats, target: string | undefined): Record<string, unknown> {
  const type = st.isFile() ? "file" : st.isDirectory() ? "directory" : st.isSymbolicLink() ? "symlink" : "unknown";
  return {
    name: at.path === "/" ? "/" : posix.basename(at.path),
    type,
    path: at.path,
    size: Number(st.size),
    mode: Number(st.mode & 0o7777n),
    uid: inside(Number(st.uid), at.idBase),
    gid: inside(Number(st.gid), at.idBase),
    atime: st.atime.toISOString(),
    mtime: st.mtime.toISOString(),
    ctime: st.ctime.toISOString(),
    ...(target === undefined ? {} : { target }),
  };
}

/**
 * The entries under a directory, `depth` levels deep (1: its children only), parents before
 * children. Each child dir is opened without following a link, so a listing never descends into
 * one: a link is listed as itself.
 */
export async function listDir(found: Located, idBase: number | undefined, depth: number): Promise<Record<string, unknown>[]> {
  const self = await entryStat(entryOf(found, idBase));
  if (self.type !== "directory") throw new ApiError(400, `path '${found.path}' is not a directory`);
  const out: Record<string, unknown>[] = [];
  const walk = async (dir: Dir, path: string, level: number): Promise<void> => {
    for (const name of (await readdir(dir.self)).sort()) {
      const child: VolumeEntry = { dir, name, path: posix.join(path, name), ...(idBase === undefined ? {} : { idBase }) };
      const stat = await entryStat(child).catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 404) return undefined; // gone since readdir
        throw err;
      });
      if (!stat) continue;
      out.push(stat);
      if (stat.type !== "directory" || level >= depth) continue;
      const sub = await dir.sub(name);
      try {
        await walk(sub, child.path, level + 1);
      } finally {
        await sub.close();
      }
    }
  };
  const top = found.name === "." ? found.dir : await found.dir.sub(found.name);
  try {
    await walk(top, found.path, 1);
  } finally {
    if (top !== found.dir) await top.close();
  }
  return out;
}
