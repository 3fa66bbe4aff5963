/**
 * The file side of the volume content API: a `path` query parameter (absolute or not, always inside
 * the volume) mapped onto the volume's host directory, and the VolumeEntryStat of what is there.
 */
import { lstatSync, readlinkSync } from "node:fs";
import { lstat, readdir, readlink } from "node:fs/promises";
import { join, posix } from "node:path";
import { ApiError } from "../http";

/** A path inside a volume: as the API names it, and where it is on the host. */
export interface VolumePath {
  /** Clean, absolute, inside the volume: `/`, `/data/a.txt`. */
  path: string;
  host: string;
  /**
   * With isolated sandboxes, the host id that stands for id 0 inside them: owners are shown and
   * set as the sandboxes see them (uid 1000 is host idBase + 1000). Undefined: ids as they are.
   */
  idBase?: number;
}

/** An owner id as a sandbox sees it. */
function inside(id: number, idBase: number | undefined): number {
  return idBase !== undefined && id >= idBase && id < idBase + 65_536 ? id - idBase : id;
}

/**
 * Resolves `raw` inside the volume rooted at `hostDir`; a path that climbs out of it is a 400.
 * Links that sandboxes made in the volume are followed here, inside the volume, never by the OS:
 * this API runs with the emulator's rights (root, on a machine that isolates sandboxes), and a
 * link to `/etc` must not let a volume token write the host's `/etc`. A relative link is followed
 * within the volume; an absolute one (which names a path of whatever sandbox mounts it) is refused.
 * The last segment is followed only for `followLast` (reading or writing a file's content).
 */
export function volumePath(hostDir: string, raw: string | null, followLast = false): VolumePath {
  if (raw === null || raw === "") throw new ApiError(400, 'parameter "path" in query has an error: value is required but missing');
  const outside = () => new ApiError(400, `path '${raw}' is outside the volume`);
  const parts: string[] = [];
  let rest = raw.split("/");
  for (let hops = 0; rest.length > 0; ) {
    const part = rest.shift()!;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) throw outside();
      parts.pop();
      continue;
    }
    const host = join(hostDir, ...parts, part);
    const last = !rest.some((p) => p !== "" && p !== ".");
    if ((last && !followLast) || !isLink(host)) {
      parts.push(part);
      continue;
    }
    const target = readlinkSync(host);
    if (target.startsWith("/") || ++hops > 40) throw outside();
    rest = [...target.split("/"), ...rest];
  }
  return { path: `/${parts.join("/")}`, host: join(hostDir, ...parts) };
}

function isLink(host: string): boolean {
  try {
    return lstatSync(host).isSymbolicLink();
  } catch {
    return false;
  }
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
    uid: inside(st.uid, at.idBase),
    gid: inside(st.gid, at.idBase),
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
      const child = { ...dir, path: posix.join(dir.path, name), host: join(dir.host, name) };
      const stat = await entryStat(child);
      out.push(stat);
      if (stat.type === "directory" && level < depth) await walk(child, level + 1);
    }
  };
  await walk(at, 1);
  return out;
}
