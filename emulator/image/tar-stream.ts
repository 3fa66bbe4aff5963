/**
 * A tar reader over a stream, for image layers: a layer may be hundreds of MB, so an entry's header
 * is read whole and its body is handed on in the chunks it came in, never held. It reads the formats
 * image builders write: ustar (with its name prefix), PAX `x` records (long paths, link targets,
 * sizes and ids past the octal fields), GNU `L`/`K` long names and GNU base-256 numbers. Paths are
 * returned as written (minus `./`); whether one is safe to write is the unpacker's decision.
 */
import { ChunkBuffer } from "../chunk-buffer";

export type EntryType = "file" | "dir" | "symlink" | "hardlink" | "other";

export interface TarEntry {
  path: string;
  type: EntryType;
  /** The type flag as written, for messages about the entries that are skipped. */
  flag: string;
  /** Permission bits with setuid, setgid and sticky (0o7777). */
  mode: number;
  uid: number;
  gid: number;
  size: number;
  /** Seconds since the epoch. */
  mtime: number;
  linkname: string;
}

const BLOCK = 512;

/** A layer's bytes as they arrive (../chunk-buffer.ts), handed out in exact spans. */
class ByteReader extends ChunkBuffer {
  /** Exactly `n` bytes, or fewer only at the stream's end. */
  async take(n: number): Promise<Buffer> {
    await this.have(n);
    const out = this.buffer.subarray(0, n);
    this.buffer = this.buffer.subarray(out.length);
    return out;
  }

  /** `span.left` bytes as they arrive; `span.left` says how many a reader that stopped early left. */
  async *pass(span: { left: number }): AsyncGenerator<Buffer> {
    while (span.left > 0) {
      if (this.buffer.length === 0 && !(await this.more())) throw new Error(`the layer ends inside an entry (${span.left} bytes short)`);
      const piece = this.buffer.subarray(0, span.left);
      this.buffer = this.buffer.subarray(piece.length);
      span.left -= piece.length;
      yield piece;
    }
  }
}

/**
 * Each entry with its body. The body must be read (or left: the rest is skipped) before the next
 * entry is asked for.
 * @throws Error on a bad header checksum or a stream that ends inside an entry.
 */
export async function* tarEntries(source: AsyncIterable<Buffer>): AsyncGenerator<{ entry: TarEntry; body: AsyncGenerator<Buffer> }> {
  const reader = new ByteReader(source[Symbol.asyncIterator]());
  let meta: Partial<Record<"path" | "linkname" | "size" | "uid" | "gid" | "mtime", string>> = {};
  for (let at = 0; ; ) {
    const h = await reader.take(BLOCK);
    if (h.length === 0 || h.every((b) => b === 0)) return;
    if (h.length < BLOCK) throw new Error(`the layer ends inside a header at byte ${at}`);
    if (!checksumOk(h)) throw new Error(`the layer is not a tar archive: bad header checksum at byte ${at}`);
    const flag = String.fromCharCode(h[156] || 0x30);
    const size = meta.size !== undefined && !"xgLK".includes(flag) ? Number(meta.size) : readNumber(h, 124, 12);
    const padded = Math.ceil(size / BLOCK) * BLOCK;
    at += BLOCK + padded;
    if ("xgLK".includes(flag)) {
      const data = await reader.take(padded);
      if (data.length < padded) throw new Error("the layer ends inside an extended header");
      const text = data.subarray(0, size);
      if (flag === "x") meta = { ...meta, ...pax(text) };
      else if (flag === "L") meta.path = cstr(text);
      else if (flag === "K") meta.linkname = cstr(text);
      continue;
    }
    const entry = headerEntry(h, flag, size, meta);
    meta = {};
    const span = { left: size };
    yield { entry, body: reader.pass(span) };
    // What the consumer left of the body, then the padding to the next block.
    for await (const _ of reader.pass({ left: span.left + padded - size })) void _;
  }
}

function headerEntry(h: Buffer, flag: string, size: number, meta: Partial<Record<string, string>>): TarEntry {
  const ustar = h.subarray(257, 263).toString("latin1") === "ustar\0";
  const prefix = ustar ? cstr(h.subarray(345, 500)) : "";
  const name = meta.path ?? (prefix ? `${prefix}/${cstr(h.subarray(0, 100))}` : cstr(h.subarray(0, 100)));
  const type: EntryType = "07\0".includes(flag) ? "file" : flag === "5" ? "dir" : flag === "2" ? "symlink" : flag === "1" ? "hardlink" : "other";
  return {
    path: name.replace(/^(\.\/)+/, "").replace(/\/+$/, ""),
    type,
    flag,
    mode: readNumber(h, 100, 8) & 0o7777,
    uid: meta.uid !== undefined ? Number(meta.uid) : readNumber(h, 108, 8),
    gid: meta.gid !== undefined ? Number(meta.gid) : readNumber(h, 116, 8),
    size,
    mtime: meta.mtime !== undefined ? Math.floor(Number(meta.mtime)) : readNumber(h, 136, 12),
    linkname: meta.linkname ?? cstr(h.subarray(157, 257)),
  };
}

function checksumOk(h: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  return sum === readNumber(h, 148, 8);
}

/** An octal field, or GNU's base-256 (high bit of the first byte set) for values past it. */
function readNumber(h: Buffer, offset: number, width: number): number {
  const field = h.subarray(offset, offset + width);
  if (field[0]! & 0x80) {
    let n = field[0]! & 0x7f;
    for (let i = 1; i < field.length; i++) n = n * 256 + field[i]!;
    return n;
  }
  const text = field.toString("latin1").replace(/[\0 ]+$/, "").trim();
  return text === "" ? 0 : parseInt(text, 8);
}

function cstr(b: Buffer): string {
  const end = b.indexOf(0);
  return b.subarray(0, end < 0 ? b.length : end).toString("utf8");
}

const PAX_KEYS: Record<string, string> = { path: "path", linkpath: "linkname", size: "size", uid: "uid", gid: "gid", mtime: "mtime" };

/** PAX records, `<len> key=value\n` each; the length counts the whole record, so values may hold newlines. */
function pax(data: Buffer): Partial<Record<string, string>> {
  const out: Partial<Record<string, string>> = {};
  for (let at = 0; at < data.length; ) {
    const space = data.indexOf(0x20, at);
    const len = space < 0 ? NaN : parseInt(data.subarray(at, space).toString("latin1"), 10);
    if (!(len > 0)) break;
    const record = data.subarray(space + 1, at + len - 1).toString("utf8");
    const eq = record.indexOf("=");
    const key = PAX_KEYS[record.slice(0, eq)];
    if (eq > 0 && key) out[key] = record.slice(eq + 1);
    at += len;
  }
  return out;
}
