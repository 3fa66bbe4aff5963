/**
 * The peer's filesystem service over a host dir that stands for the sandbox's `/`. Enough of envd's
 * behaviour for the client's tests: depth-limited listing, stat, mkdir (already_exists), move, remove.
 */
import { lstat, mkdir, readdir, readlink, rename, rm, stat } from "node:fs/promises";
import { join, posix } from "node:path";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { FileType, type EntryInfoSchema } from "../../../sdk/gen/filesystem/filesystem_pb";

type Entry = MessageInitShape<typeof EntryInfoSchema>;

export function filesystemService(root: string) {
  const host = (p: string) => join(root, posix.normalize(`/${p}`));
  return {
    async stat(req: { path: string }) {
      return { entry: await entryOf(host(req.path), posix.normalize(req.path)) };
    },
    async makeDir(req: { path: string }) {
      if (await exists(host(req.path))) throw new ConnectError(`path already exists: ${req.path}`, Code.AlreadyExists);
      await mkdir(host(req.path), { recursive: true });
      return { entry: await entryOf(host(req.path), req.path) };
    },
    async move(req: { source: string; destination: string }) {
      await guard(req.source, rename(host(req.source), host(req.destination)));
      return { entry: await entryOf(host(req.destination), req.destination) };
    },
    async listDir(req: { path: string; depth: number }) {
      const entries: Entry[] = [];
      await walk(host, posix.normalize(req.path), Math.max(1, req.depth), entries);
      return { entries };
    },
    async remove(req: { path: string }) {
      await rm(host(req.path), { recursive: true, force: true });
      return {};
    },
  };
}

async function walk(host: (p: string) => string, dir: string, depth: number, out: Entry[]): Promise<void> {
  const names = await guard(dir, readdir(host(dir)));
  for (const name of names.sort()) {
    const path = posix.join(dir, name);
    const entry = await entryOf(host(path), path);
    out.push(entry);
    if (depth > 1 && entry.type === FileType.DIRECTORY) await walk(host, path, depth - 1, out);
  }
}

async function entryOf(hostPath: string, path: string): Promise<Entry> {
  const st = await guard(path, lstat(hostPath));
  const type = st.isSymbolicLink() ? FileType.SYMLINK : st.isDirectory() ? FileType.DIRECTORY : FileType.FILE;
  return {
    name: posix.basename(path),
    type,
    path,
    size: BigInt(st.size),
    mode: st.mode,
    permissions: (st.mode & 0o777).toString(8),
    owner: "user",
    group: "user",
    modifiedTime: timestampFromDate(st.mtime),
    symlinkTarget: type === FileType.SYMLINK ? await readlink(hostPath) : undefined,
  };
}

async function exists(hostPath: string): Promise<boolean> {
  return stat(hostPath).then(
    () => true,
    () => false,
  );
}

async function guard<T>(path: string, op: Promise<T>): Promise<T> {
  try {
    return await op;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new ConnectError(`no such file or directory: ${path}`, Code.NotFound);
    throw err;
  }
}
