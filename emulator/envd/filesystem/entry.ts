/**
 * EntryInfo of a path, with envd's fields: `path` is the SANDBOX path (never the host's), `mode`
 * the permission bits, `permissions` Go's `os.FileMode` text (`-rw-r--r--`, `drwxr-xr-x`,
 * `Lrwxrwxrwx`). As in envd, a symlink reports the type and mode of what it points to, with
 * `symlinkTarget` the resolved sandbox path, and `isSymlink` (the newest envd's field 12:
 * ./newest-proto.ts) marks it as a link. A volume mount point (a link in the emulator's data
 * dir, a mount in a real sandbox) reports as the directory it is, with no link target.
 *
 * Owner and group: named as the sandbox sees them (isolation/layout.ts `ownerName`): `user`,
 * `root`, or the number, as envd does when a name is unknown.
 */
import type { BigIntStats } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { FileType, type EntryInfoSchema } from "../../../sdk/gen/filesystem/filesystem_pb";
import type { SandboxRuntime } from "../../types";
import { statAt } from "../../confined/ops";
import type { Located } from "../../confined/walk";
import { readMetadata } from "../file-metadata";
import { ownerName } from "../isolation/layout";
import { locateIn } from "../links";
import { sandboxPathOfHost } from "../paths";
import type { NewestEntryFields } from "./newest-proto";

export type EntryInit = MessageInitShape<typeof EntryInfoSchema> & NewestEntryFields;

/** Go's FileMode type letters, in Go's order, with the st_mode bits that set them. */
const TYPE_LETTERS: readonly [string, (mode: number) => boolean][] = [
  ["d", (m) => (m & 0o170000) === 0o040000],
  ["L", (m) => (m & 0o170000) === 0o120000],
  ["D", (m) => (m & 0o170000) === 0o020000 || (m & 0o170000) === 0o060000],
  ["p", (m) => (m & 0o170000) === 0o010000],
  ["S", (m) => (m & 0o170000) === 0o140000],
  ["u", (m) => (m & 0o4000) !== 0],
  ["g", (m) => (m & 0o2000) !== 0],
  ["c", (m) => (m & 0o170000) === 0o020000],
  ["t", (m) => (m & 0o1000) !== 0],
];

/** Go's `os.FileMode.String()` for an st_mode. */
export function permissionsText(mode: number): string {
  const letters = TYPE_LETTERS.filter(([, test]) => test(mode)).map(([l]) => l).join("");
  let rwx = "";
  for (let bit = 8; bit >= 0; bit--) rwx += mode & (1 << bit) ? "rwx"[(8 - bit) % 3] : "-";
  return (letters || "-") + rwx;
}

function typeOf(st: BigIntStats): FileType {
  if (st.isFile()) return FileType.FILE;
  if (st.isDirectory()) return FileType.DIRECTORY;
  if (st.isSymbolicLink()) return FileType.SYMLINK;
  return FileType.UNSPECIFIED;
}

function fromStats(runtime: SandboxRuntime, name: string, sandboxPath: string, st: BigIntStats): EntryInit {
  return {
    name,
    type: typeOf(st),
    path: sandboxPath,
    size: st.size,
    mode: Number(st.mode & 0o777n),
    permissions: permissionsText(Number(st.mode)),
    owner: ownerName(runtime.isolation, Number(st.uid)),
    group: ownerName(runtime.isolation, Number(st.gid)),
    modifiedTime: { seconds: st.mtimeNs / 1_000_000_000n, nanos: Number(st.mtimeNs % 1_000_000_000n) },
  };
}

/** The user metadata of the file `osPath` names (../file-metadata.ts); none leaves the field empty, as envd does. */
async function metadataOf(st: BigIntStats | undefined, osPath: string, follow = false): Promise<Pick<EntryInit, "metadata">> {
  const metadata = st && (await readMetadata(st, osPath, follow));
  return metadata ? { metadata } : {};
}

/** An entry found in the sandbox's tree (../links.ts): its open dir and its name there. */
export type EntryAt = Pick<Located, "dir" | "name" | "follow">;

/**
 * The entry found at `at`, reported under `sandboxPath`. not_found when nothing is there, worded
 * as envd words it (`file not found: lstat …`) but naming the sandbox path, not the host's. A
 * volume mount point is found as the volume's dir itself, so it reports as the directory it is.
 */
export async function entryInfo(runtime: SandboxRuntime, at: EntryAt, sandboxPath: string): Promise<EntryInit> {
  const name = sandboxPath === "/" ? "/" : sandboxPath.slice(sandboxPath.lastIndexOf("/") + 1);
  const link = await statAt({ ...at, follow: false }, { bigint: true }).catch((err: NodeJS.ErrnoException) => {
    throw new ConnectError(`error getting file info: ${err.code ?? err.message}`, Code.Internal);
  });
  if (!link) throw new ConnectError(`file not found: lstat ${sandboxPath}: no such file or directory`, Code.NotFound);
  if (!link.isSymbolicLink()) return { ...fromStats(runtime, name, sandboxPath, link), ...(await metadataOf(link, at.dir.at(at.name))) };
  const { target, targetPath, metadata } = await linkTarget(runtime, at, sandboxPath);
  return {
    ...fromStats(runtime, name, sandboxPath, link),
    type: target ? typeOf(target) : FileType.UNSPECIFIED,
    mode: target ? Number(target.mode & 0o777n) : 0,
    symlinkTarget: targetPath,
    isSymlink: true,
    // envd reads a link's xattrs through the link (listxattr follows it): the target's metadata.
    metadata: metadata ?? {},
  };
}

/**
 * What a link points to. With namespaces the link is followed in the sandbox (../links.ts), never
 * on the host, where an absolute target would name the host's file; otherwise the OS follows it.
 * A link to nothing reports its own path, as envd's EvalSymlinks fallback does.
 */
async function linkTarget(runtime: SandboxRuntime, at: EntryAt, sandboxPath: string): Promise<LinkTarget> {
  if (!at.follow) {
    const found = await locateIn(runtime, sandboxPath, { followLast: true }).catch(() => undefined);
    if (!found) return { target: undefined, targetPath: sandboxPath };
    try {
      const target = await statAt(found, { bigint: true }).catch(() => undefined);
      // Read while the target's dir is open: its fd path names it.
      return { target, targetPath: target ? found.path : sandboxPath, ...(await metadataOf(target, found.dir.at(found.name))) };
    } finally {
      await found.close();
    }
  }
  const hostPath = path.join(at.dir.hostPath, at.name);
  const target = await stat(hostPath, { bigint: true }).catch(() => undefined);
  const resolved = await realpath(hostPath).catch(() => undefined);
  const targetPath = resolved === undefined ? sandboxPath : ((await sandboxPathOfHost(runtime, resolved)) ?? resolved);
  // Unisolated: the OS follows the link, as the sandbox's own commands do.
  return { target, targetPath, ...(await metadataOf(target, hostPath, true)) };
}

type LinkTarget = { target: BigIntStats | undefined; targetPath: string } & Pick<EntryInit, "metadata">;
