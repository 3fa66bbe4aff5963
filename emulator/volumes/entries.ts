/**
 * The file side of the volume content API: a `path` query parameter (absolute or not, always inside
 * the volume) mapped onto the volume's host directory, and the VolumeEntryStat of what is there.
 */
import { lstat, readdir, readlink } from "node:fs/promises";
import { join, posix } from "node:path";
import { ApiError } from "../http";

/** A path inside a volume: as the API names it, and where it is on the host. */
export interface VolumePath {
  /** Clean, absolute, inside the volume: `/`, `/data/a.txt`. */
  path: string;
  host: string;
}

/** Resolves `raw` inside the volume rooted at `hostDir`; a path that climbs out of it is a 400. */
export function volumePath(hostDir: string, raw: string | null): VolumePath {
  if (raw === null || raw === "") throw new ApiError(400, 'parameter "path" in query has an error: value is required but missing');
  const parts: string[] = [];
  for (const part of raw.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) throw new ApiError(400, `path '${raw}' is outside the volume`);
      parts.pop();
    } else parts.push(part);
  }
  return { path: `/${parts.join("/")}`, host: join(hostDir, ...parts) };
}

/** VolumeEntryStat of the spec: times in RFC 3339, `mode` the permission bits, `target` for symlinks. */
export async function entryStat(at: VolumePath): Promise<Record<string, unknown>> {
  const st = await lstat(at.host).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT" || err.code === "ENOTDIR") throw new ApiError(404, `path '${at.path}' not found`);
    throw err;
  });
  const type = st.isFile() ? "file" : st.isDirectory() ? "directory" : st.isSymbolicLink() ? "symlink" : "unknown";
  return {
    name: at.path === "/" ? "/" : posix.basename(at.path),
    type,
    path: at.path,
    size: st.size,
    mode: st.mode & 0o7777,
    uid: st.uid,
    gid: st.gid,
    atime: st.atime.toISOString(),
    mtime: st.mtime.toISOString(),
    ctime: st.ctime.toISOString(),
    ...(st.isSymbolicLink() ? { target: await readlink(at.host) } : {}),
  };
}

/** The entries under a directory, `depth` levels deep (1: its children only), parents before children. */
export async function listDir(at: VolumePath, depth: number): Promise<Record<string, unknown>[]> {
  const self = await entryStat(at);
  if (self.type !== "directory") throw new ApiError(400, `path '${at.path}' is not a directory`);
  const out: Record<string, unknown>[] = [];
  const walk = async (dir: VolumePath, level: number): Promise<void> => {
    const names = (await readdir(dir.host)).sort();
    for (const name of names) {
      const child = { path: posix.join(dir.path, name), host: join(dir.host, name) };
      const stat = await entryStat(child);
      out.push(stat);
      if (stat.type === "directory" && level < depth) await walk(child, level + 1);
    }
  };
  await walk(at, 1);
  return out;
}
