/**
 * Reads the archives clients upload for COPY steps: gzipped or plain tar, ustar with PAX (`x`) and
 * GNU long-name (`L`, `K`) headers, as the service's SDK (node-tar) and ours (sdk/template-build) write them.
 * Regular files, directories and symlinks are kept; other entry types are skipped. An entry whose
 * path climbs out with `..` is refused, as Docker's extraction refuses a breakout.
 */
import { gunzipSync } from "node:zlib";
import { MAX_UPLOAD_BYTES } from "./build-files";

/**
 * Most bytes a gzipped archive may inflate to: what a plain one may be uploaded as. Members are
 * held in memory, so a small archive of zeros must not inflate without end.
 */
export const MAX_ARCHIVE_BYTES = MAX_UPLOAD_BYTES;

/** One archive member. `path` has no leading `./` and no trailing `/`. */
export interface TarMember {
  path: string;
  type: "file" | "dir" | "symlink";
  /** Permission bits (0o7777). */
  mode: number;
  data: Buffer;
  linkname: string;
}

/** @throws Error with a message naming what is wrong: not a tar, larger than `maxBytes` inflated, an entry climbing out. */
export function readTar(archive: Buffer, maxBytes = MAX_ARCHIVE_BYTES): TarMember[] {
  const tar = archive[0] === 0x1f && archive[1] === 0x8b ? inflate(archive, maxBytes) : archive;
  const out: TarMember[] = [];
  let long: { path?: string; linkname?: string } = {};
  for (let at = 0; at + 512 <= tar.length; ) {
    const h = tar.subarray(at, at + 512);
    if (h.every((b) => b === 0)) break;
    if (!checksumOk(h)) throw new Error(`not a tar archive: bad header checksum at byte ${at}`);
    const size = readOctal(h, 124, 12);
    const type = String.fromCharCode(h[156] || 0x30);
    const data = tar.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
    if (type === "x") long = { ...long, ...pax(data) };
    else if (type === "L") long.path = cstr(data);
    else if (type === "K") long.linkname = cstr(data);
    else if (type !== "g") {
      const prefix = cstr(h.subarray(345, 500));
      const name = long.path ?? (prefix ? `${prefix}/${cstr(h.subarray(0, 100))}` : cstr(h.subarray(0, 100)));
      const kind = type === "5" ? "dir" : type === "2" ? "symlink" : type === "0" || type === "7" ? "file" : undefined;
      const path = name.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
      if (path.split("/").includes("..")) throw new Error(`archive entry '${name}' is outside the copied files`);
      if (kind && path !== "" && path !== ".") {
        out.push({ path, type: kind, mode: readOctal(h, 100, 8) & 0o7777, data: Buffer.from(data), linkname: long.linkname ?? cstr(h.subarray(157, 257)) });
      }
      long = {};
    }
  }
  return out;
}

function inflate(archive: Buffer, maxBytes: number): Buffer {
  try {
    return gunzipSync(archive, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") {
      throw new Error(`the archive inflates to more than ${maxBytes} bytes, the emulator's bound`);
    }
    throw err;
  }
}

function checksumOk(h: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  return sum === readOctal(h, 148, 8);
}

function readOctal(h: Buffer, offset: number, width: number): number {
  const text = h.subarray(offset, offset + width).toString("latin1").replace(/[\0 ]+$/, "").trim();
  return text === "" ? 0 : parseInt(text, 8);
}

function cstr(b: Buffer): string {
  const end = b.indexOf(0);
  return b.subarray(0, end < 0 ? b.length : end).toString("utf8");
}

/** PAX records `<len> key=value\n`; only path and linkpath matter here. */
function pax(data: Buffer): { path?: string; linkname?: string } {
  const out: { path?: string; linkname?: string } = {};
  for (const line of data.toString("utf8").split("\n")) {
    const m = /^\d+ ([^=]+)=(.*)$/s.exec(line);
    if (m?.[1] === "path") out.path = m[2]!;
    if (m?.[1] === "linkpath") out.linkname = m[2]!;
  }
  return out;
}
