/**
 * A streaming multipart/form-data reader for envd's POST /files: each part's body is handed on as
 * it arrives, so an upload goes to its file without the request being held in memory (as envd's
 * Go multipart.Reader does; fetch's Request.formData() held all of it). Only what envd reads of a
 * part is parsed: the Content-Disposition's `name` and `filename`.
 */
import { Readable } from "node:stream";
import { ChunkBuffer } from "../chunk-buffer";

/** One part: its form field name, its file name (undefined for a plain field), and its bytes. */
export interface Part {
  name: string | undefined;
  filename: string | undefined;
  body: Readable;
}

/** A malformed body, with the message envd's reader would give. */
export class MultipartError extends Error {}

/** Longest preamble and header block accepted before the reader gives up on a body. */
const MAX_HEAD_BYTES = 64 * 1024;
const CRLF = Buffer.from("\r\n");

/** The boundary of a multipart Content-Type; undefined when it has none. */
export function boundaryOf(contentType: string): string | undefined {
  const m = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType);
  return m?.[1] ?? m?.[2];
}

/** The body's bytes as they arrive (../chunk-buffer.ts), with a look-ahead for delimiters. */
class Pull extends ChunkBuffer {
  /** Waits for `needle` within the first `limit` bytes; its index, or -1 at the end of the stream. */
  async find(needle: Buffer, limit: number): Promise<number> {
    for (;;) {
      const at = this.buffer.indexOf(needle);
      if (at >= 0) return at;
      if (this.buffer.length > limit) throw new MultipartError("multipart: header or preamble too large");
      if (!(await this.more())) return -1;
    }
  }

}

/**
 * The parts of a multipart body, one after the other: a part's body must be read (or left) before
 * the next part is asked for; what is left of it is skipped.
 */
export async function* multipartParts(source: AsyncIterable<Buffer>, boundary: string): AsyncGenerator<Part> {
  const pull = new Pull(source[Symbol.asyncIterator]());
  const dash = Buffer.from(`--${boundary}`);
  const delimiter = Buffer.concat([CRLF, dash]);
  // The first delimiter may open the body, without a CRLF before it.
  const first = await pull.find(dash, MAX_HEAD_BYTES);
  if (first < 0) throw new MultipartError("multipart: NextPart: EOF");
  pull.buffer = pull.buffer.subarray(first + dash.length);
  for (;;) {
    if (!(await pull.have(2))) throw new MultipartError("multipart: NextPart: unexpected EOF");
    if (pull.buffer[0] === 0x2d && pull.buffer[1] === 0x2d) return; // the closing delimiter
    const eol = await pull.find(CRLF, MAX_HEAD_BYTES);
    if (eol < 0 || pull.buffer.subarray(0, eol).toString("latin1").trim() !== "") throw new MultipartError("multipart: NextPart: bad delimiter line");
    pull.buffer = pull.buffer.subarray(eol + 2);
    if (!(await pull.have(2))) throw new MultipartError("multipart: NextPart: unexpected EOF in headers");
    let headers = "";
    if (pull.buffer.subarray(0, 2).equals(CRLF)) pull.buffer = pull.buffer.subarray(2); // a part with no headers
    else {
      const end = await pull.find(Buffer.from("\r\n\r\n"), MAX_HEAD_BYTES);
      if (end < 0) throw new MultipartError("multipart: NextPart: unexpected EOF in headers");
      headers = pull.buffer.subarray(0, end).toString("utf8");
      pull.buffer = pull.buffer.subarray(end + 4);
    }
    const state = { ended: false };
    const body = partBody(pull, delimiter, state);
    yield { ...disposition(headers), body: Readable.from(body, { objectMode: false }) };
    // Whatever the reader left of the part is skipped; a reader that stopped it midway stopped the body too.
    for await (const _ of body) void _;
    if (!state.ended) throw new MultipartError("multipart: a part was not read to its end");
    pull.buffer = pull.buffer.subarray(delimiter.length);
  }
}

/** A part's bytes up to (not including) the next delimiter, which is left at the front of `pull`. */
async function* partBody(pull: Pull, delimiter: Buffer, state: { ended: boolean }): AsyncGenerator<Buffer> {
  for (;;) {
    const at = pull.buffer.indexOf(delimiter);
    if (at >= 0) {
      const last = pull.buffer.subarray(0, at);
      pull.buffer = pull.buffer.subarray(at);
      state.ended = true;
      if (last.length > 0) yield last;
      return;
    }
    // All but a tail that could be the start of the delimiter is the part's.
    const safe = pull.buffer.length - delimiter.length + 1;
    if (safe > 0) {
      const chunk = pull.buffer.subarray(0, safe);
      pull.buffer = pull.buffer.subarray(safe);
      yield chunk;
    }
    if (!(await pull.more())) throw new MultipartError("multipart: NextPart: unexpected EOF");
  }
}

/** `name` and `filename` of a part's Content-Disposition (`filename*` in RFC 5987 form too). */
function disposition(headers: string): { name: string | undefined; filename: string | undefined } {
  const line = headers.split("\r\n").find((h) => /^content-disposition\s*:/i.test(h)) ?? "";
  const params = new Map<string, string>();
  for (const m of line.matchAll(/;\s*([\w*-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/g)) {
    params.set(m[1]!.toLowerCase(), m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3]!);
  }
  const extended = params.get("filename*")?.match(/^[\w-]*'[^']*'(.*)$/)?.[1];
  // Browsers and undici escape these three in a quoted filename.
  const plain = params.get("filename")?.replace(/%22/g, '"').replace(/%0D/gi, "\r").replace(/%0A/gi, "\n");
  return { name: params.get("name"), filename: extended !== undefined ? decodeURIComponent(extended) : plain };
}
