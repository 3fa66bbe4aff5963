/**
 * User-defined file metadata (docs/service.md#file-metadata): an upload's `X-Metadata-<key>: <value>`
 * headers, kept with the file and reported as `EntryInfo.metadata` by the upload's answer, Stat,
 * ListDir and Move. envd keeps them as `user.e2b.<key>` extended attributes of the file's inode.
 * The emulator does the same through a python3 helper (./xattrs.ts), so metadata set with
 * `setxattr` inside the sandbox is reported and `getfattr` there sees the API's. Where that helper
 * or the filesystem cannot (no python3, no user xattrs), the metadata is kept here instead, keyed
 * by the same thing an xattr belongs to: the inode, named by device, inode number and birth time
 * (a deleted file's reused inode number has a new birth time). So, either way, it follows a rename
 * by the API or by a command, survives an overwrite in place and pause/resume, is seen through
 * every sandbox that mounts the same volume, and is not copied by `cp`.
 */
import type { IncomingHttpHeaders } from "node:http";
import { xattrs } from "./xattrs";

/** The request-header prefix of a metadata entry (Node lower-cases header names). */
const HEADER_PREFIX = "x-metadata-";
/** envd's xattr namespace; it counts toward the limits below as it does on the service. */
const XATTR_PREFIX = "user.e2b.";
/** Longest key: the Linux limit on an xattr name (255 bytes) less the namespace. */
export const MAX_KEY_LENGTH = 255 - XATTR_PREFIX.length;
/** Most bytes of names and values on one file: one ext4 block, where the inode's xattrs live. */
export const MAX_TOTAL_LENGTH = 4096;

export type FileMetadata = Record<string, string>;

/** The `X-Metadata-*` headers of a request, keys lower-cased; undefined when there are none. */
export function metadataFromHeaders(headers: IncomingHttpHeaders): FileMetadata | undefined {
  let metadata: FileMetadata | undefined;
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(HEADER_PREFIX) || value === undefined) continue;
    const key = name.slice(HEADER_PREFIX.length);
    if (key === "") continue;
    // Go's Header.Get: the first of repeated values.
    (metadata ??= {})[key] = Array.isArray(value) ? (value[0] ?? "") : value;
  }
  return metadata;
}

/** Why envd would refuse this metadata (its wording), or undefined when it is valid. */
export function metadataProblem(metadata: FileMetadata | undefined): string | undefined {
  let total = 0;
  for (const [key, value] of Object.entries(metadata ?? {})) {
    if (key === "") return "metadata key must not be empty";
    if (Buffer.byteLength(key, "latin1") > MAX_KEY_LENGTH) return `metadata key ${JSON.stringify(key)} exceeds ${MAX_KEY_LENGTH} bytes`;
    const bad = nonPrintable("key", key) ?? nonPrintable(`value for key ${JSON.stringify(key)}`, value);
    if (bad) return bad;
    total += XATTR_PREFIX.length + Buffer.byteLength(key, "latin1") + Buffer.byteLength(value, "latin1");
  }
  if (total > MAX_TOTAL_LENGTH) return `total metadata size ${total} exceeds ${MAX_TOTAL_LENGTH} bytes`;
  return undefined;
}

/** Keys and values must be printable US-ASCII (0x20–0x7E), byte by byte. */
function nonPrintable(label: string, text: string): string | undefined {
  // Node reads header bytes as latin1: one char per byte, as Go sees them.
  const bytes = Buffer.from(text, "latin1");
  const at = bytes.findIndex((c) => c < 0x20 || c > 0x7e);
  if (at < 0) return undefined;
  return `metadata ${label} contains non-printable-ASCII byte 0x${bytes[at]!.toString(16).padStart(2, "0")} at offset ${at}`;
}

/** What names one inode: the fields of a (bigint) stat that an xattr lives with. */
export interface InodeStats {
  dev: bigint;
  ino: bigint;
  birthtimeNs: bigint;
  ctimeNs: bigint;
}

const inodeKey = (st: InodeStats) => `${st.dev}:${st.ino}:${st.birthtimeNs}`;

/**
 * The metadata of every file that has some its xattrs could not hold, for the whole emulator (an
 * inode is the host's, not one sandbox's). An overwrite without metadata removes a file's entry.
 */
class MetadataStore {
  private readonly byInode = new Map<string, FileMetadata>();

  /** Replaces a file's metadata, as envd's WriteMetadata does: keys not given are cleared. */
  write(st: InodeStats, metadata: FileMetadata | undefined): void {
    if (metadata && Object.keys(metadata).length > 0) this.byInode.set(inodeKey(st), { ...metadata });
    else this.byInode.delete(inodeKey(st));
  }

  /** A file's metadata, or undefined when it has none (envd then leaves the field out). */
  read(st: InodeStats): FileMetadata | undefined {
    const found = this.byInode.get(inodeKey(st));
    return found ? { ...found } : undefined;
  }
}

const kept = new MetadataStore();

/**
 * A file's metadata: its `user.e2b.*` xattrs, and what is kept here for it when they could not be
 * written. `osPath` names the inode of `st` for the OS; `follow` when it is a link to it (an open
 * file's /proc/self/fd entry), never a link in the sandbox's tree.
 */
export async function readMetadata(st: InodeStats, osPath: string, follow = false): Promise<FileMetadata | undefined> {
  const merged = { ...(await xattrsOf(st, osPath, follow)), ...kept.read(st) };
  return Object.keys(merged).length > 0 ? merged : undefined;
}

/**
 * The xattrs last read from each inode, with its ctime then: setxattr and removexattr move the
 * ctime, so an unchanged ctime means unchanged xattrs, and a listing read again asks the helper
 * nothing. As git's racy-index rule, a read less than RACY_NS after the ctime is not kept: a change
 * in that same clock tick would leave the ctime as it was.
 */
const lastRead = new Map<string, { ctimeNs: bigint; xattrs: FileMetadata }>();
const RACY_NS = 100_000_000n;
const MAX_REMEMBERED = 100_000;

async function xattrsOf(st: InodeStats, osPath: string, follow: boolean): Promise<FileMetadata | undefined> {
  const key = inodeKey(st);
  const hit = lastRead.get(key);
  if (hit && hit.ctimeNs === st.ctimeNs) return hit.xattrs;
  const read = await xattrs.read(osPath, follow);
  if (read === undefined || BigInt(Date.now()) * 1_000_000n - st.ctimeNs < RACY_NS) return read;
  if (lastRead.size >= MAX_REMEMBERED) lastRead.clear();
  lastRead.set(key, { ctimeNs: st.ctimeNs, xattrs: read });
  return read;
}

/** Replaces a file's metadata, as envd's WriteMetadata does: keys not given are cleared. */
export async function writeMetadata(st: InodeStats, osPath: string, metadata: FileMetadata | undefined, follow = false): Promise<void> {
  if (await xattrs.write(osPath, metadata, follow)) kept.write(st, undefined);
  else kept.write(st, metadata);
}
