/**
 * The archive a COPY step uploads: a (gzipped) ustar tar of the step's context entries, each under
 * its context-relative path, directories as entries of their own and never recursed into (the
 * listing already holds their contents), symlinks stored as links. The service extracts it and
 * copies `src` from it, so paths must be exactly those the files hash covered.
 */
import { readFileSync, readlinkSync } from "node:fs";
import { gzipSync } from "node:zlib";
import type { ContextEntry } from "./context-files";

const BLOCK = 512;

/**
 * The tar of `entries` (from listContextFiles), gzipped unless `gzip` is false. `read` holds, by
 * path, what was already read of them (hashEntries' `keep`: a file's bytes, a link's target), so the
 * archive holds exactly the bytes that were hashed; entries it lacks are read from the disk.
 */
export function contextArchive(entries: readonly ContextEntry[], gzip = true, read?: ReadonlyMap<string, Buffer>): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    if (entry.path === "") continue;
    const { stats } = entry;
    const mode = stats.mode & 0o7777;
    const mtime = Math.floor(stats.mtimeMs / 1000);
    const known = read?.get(entry.path);
    if (stats.isSymbolicLink()) {
      parts.push(...tarEntry({ path: entry.path, type: "2", mode, mtime, linkname: known?.toString() ?? readlinkSync(entry.absolute) }));
    } else if (stats.isDirectory()) parts.push(...tarEntry({ path: `${entry.path}/`, type: "5", mode, mtime }));
    else if (stats.isFile()) parts.push(...tarEntry({ path: entry.path, type: "0", mode, mtime, data: known ?? readFileSync(entry.absolute) }));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  const tar = Buffer.concat(parts);
  return gzip ? gzipSync(tar) : tar;
}

interface TarEntry {
  path: string;
  /** `0` file, `2` symlink, `5` directory. */
  type: "0" | "2" | "5";
  mode: number;
  mtime: number;
  linkname?: string;
  data?: Buffer;
}

/** Header (preceded by a PAX header when a name does not fit ustar), then the padded data. */
export function tarEntry(e: TarEntry): Buffer[] {
  const out: Buffer[] = [];
  const split = splitName(e.path);
  const linkFits = Buffer.byteLength(e.linkname ?? "") <= 100;
  if (!split || !linkFits) {
    const records = [paxRecord("path", e.path), ...(linkFits ? [] : [paxRecord("linkpath", e.linkname!)])];
    const pax = Buffer.from(records.join(""));
    out.push(header({ name: "PaxHeader", prefix: "", type: "x", mode: 0o644, mtime: e.mtime, size: pax.length, linkname: "" }), pad(pax));
  }
  const data = e.data ?? Buffer.alloc(0);
  const { name, prefix } = split ?? { name: e.path.slice(-100), prefix: "" };
  out.push(header({ name, prefix, type: e.type, mode: e.mode, mtime: e.mtime, size: data.length, linkname: linkFits ? (e.linkname ?? "") : "" }));
  if (data.length > 0) out.push(pad(data));
  return out;
}

/** ustar keeps a path as prefix (≤155 bytes) + "/" + name (≤100 bytes); undefined when it cannot. */
function splitName(path: string): { name: string; prefix: string } | undefined {
  if (Buffer.byteLength(path) <= 100) return { name: path, prefix: "" };
  for (let i = path.indexOf("/"); i >= 0; i = path.indexOf("/", i + 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100 && name !== "") return { name, prefix };
  }
  return undefined;
}

/** One PAX record: `<length> <key>=<value>\n`, where length counts the whole record. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length) length++;
  return `${length}${body}`;
}

interface Header {
  name: string;
  prefix: string;
  type: string;
  mode: number;
  mtime: number;
  size: number;
  linkname: string;
}

function header(h: Header): Buffer {
  const b = Buffer.alloc(BLOCK);
  b.write(h.name, 0, 100, "utf8");
  octal(b, h.mode, 100, 8);
  octal(b, 0, 108, 8);
  octal(b, 0, 116, 8);
  octal(b, h.size, 124, 12);
  octal(b, h.mtime, 136, 12);
  b.write(h.type, 156, 1, "latin1");
  b.write(h.linkname, 157, 100, "utf8");
  b.write("ustar\u000000", 257, 8, "latin1");
  b.write(h.prefix, 345, 155, "utf8");
  // The checksum is computed with its own field read as eight spaces.
  b.fill(" ", 148, 156);
  let sum = 0;
  for (const byte of b) sum += byte;
  b.write(`${sum.toString(8).padStart(6, "0")}\u0000 `, 148, 8, "latin1");
  return b;
}

function octal(b: Buffer, value: number, offset: number, width: number): void {
  b.write(`${value.toString(8).padStart(width - 1, "0")}\u0000`, offset, width, "latin1");
}

function pad(data: Buffer): Buffer {
  const rest = data.length % BLOCK;
  return rest === 0 ? data : Buffer.concat([data, Buffer.alloc(BLOCK - rest)]);
}
