/**
 * The volume content API (E2B spec/openapi-volumecontent.yml; docs/service.md#volume-content-api): files inside one
 * volume, without a sandbox. Served at `https://api.{domain}` (the volume's own `domain` on custom
 * clusters, else the client's API URL), authenticated with the volume's token as
 * `Authorization: Bearer <token>` (GET /volumes/{id} mints a fresh one). Errors carry a string `code`.
 *
 * | method      | verb and path                            | success |
 * |-------------|------------------------------------------|---------|
 * | stat        | GET /volumecontent/{id}/path?path=       | 200     |
 * | setMetadata | PATCH /volumecontent/{id}/path?path=     | 200     |
 * | remove      | DELETE /volumecontent/{id}/path?path=    | 204     |
 * | list        | GET /volumecontent/{id}/dir?path=&depth= | 200     |
 * | makeDir     | POST /volumecontent/{id}/dir?path=       | 201     |
 * | upload      | PUT /volumecontent/{id}/file?path=       | 201     |
 * | download    | GET /volumecontent/{id}/file?path=       | 200     |
 * | holds       | GET /volumecontent/{id}/file?path=       | 200     |
 *
 * Retries: reads, metadata (absolute values) and deletes repeat safely; `makeDir` and `upload` repeat
 * only with `force` (mkdir -p; overwrite with the same bytes): without it a repeat after a lost
 * answer would meet what the first attempt made (409 for an upload). A repeated delete may answer 404
 * for what the first attempt removed: callers that only want the path gone treat 404 as done.
 */
import { z } from "zod";
import type { ResolvedOptions } from "../config";
import { HttpClient, type CallOptions, type Operation } from "../transport/http";
import { VolumeEntryStat, type VolumeAndToken, type VolumeEntryMetadata } from "../schemas/volumes";

const Listing = z.array(VolumeEntryStat);

/** Options of an upload or a mkdir: owner and permission bits (as sandboxes see them), and `force`. */
export interface WriteOptions extends VolumeEntryMetadata {
  /** Upload: overwrite an existing file (else 409). Mkdir: make missing parents (else 404). */
  force?: boolean;
}

/** The base URL of a volume's content API: its own domain on custom (BYOC) clusters, else the client's API URL. */
export function contentBaseUrl(options: Pick<ResolvedOptions, "apiUrl">, volume: Pick<VolumeAndToken, "domain">): string {
  return volume.domain ? `https://api.${volume.domain}` : options.apiUrl;
}

/** One volume's files. Owns a connection pool: `close()` it when done. */
export class VolumeContent {
  private readonly http: HttpClient;
  private readonly volumeID: string;

  /**
   * @param options the platform client's resolved options (timeouts, retry policy, API URL).
   * @param volume the volume and a token for it, as POST or GET /volumes answers.
   */
  constructor(options: ResolvedOptions, volume: Pick<VolumeAndToken, "volumeID" | "token" | "domain">) {
    // The token rides as this client's Bearer credential, so messages redact it like any credential.
    this.http = new HttpClient({ ...options, accessToken: volume.token, apiUrl: contentBaseUrl(options, volume) });
    this.volumeID = volume.volumeID;
  }

  /** What is at `path`. @throws `not_found`. */
  stat(path: string, call?: CallOptions): Promise<VolumeEntryStat> {
    return this.http.call(this.op("GET", "path", path), VolumeEntryStat, call);
  }

  /** Sets owner and/or permission bits of `path`. @throws `not_found`; `invalid_argument`. */
  setMetadata(path: string, meta: VolumeEntryMetadata, call?: CallOptions): Promise<VolumeEntryStat> {
    return this.http.call({ ...this.op("PATCH", "path", path), body: meta, idempotent: true }, VolumeEntryStat, call);
  }

  /** Deletes a file, or a directory with everything under it. @throws `not_found`. */
  remove(path: string, call?: CallOptions): Promise<void> {
    return this.http.callVoid(this.op("DELETE", "path", path), call);
  }

  /** The entries under a directory, `depth` levels deep (default 1: its children). @throws `not_found`. */
  list(path: string, depth?: number, call?: CallOptions): Promise<VolumeEntryStat[]> {
    return this.http.call(this.op("GET", "dir", path, { depth }), Listing, call);
  }

  /** Makes a directory; `force` makes missing parents too. @throws `not_found` (a missing parent). */
  makeDir(path: string, opts: WriteOptions = {}, call?: CallOptions): Promise<VolumeEntryStat> {
    const op = this.op("POST", "dir", path, writeQuery(opts));
    return this.http.call({ ...op, idempotent: opts.force === true }, VolumeEntryStat, call);
  }

  /**
   * Writes a whole file in one request (with an explicit Content-Length, so it is held in memory).
   * @throws `not_found` (missing parent directory); `conflict` (exists, without `force`).
   */
  upload(path: string, data: Uint8Array, opts: WriteOptions = {}, call?: CallOptions): Promise<VolumeEntryStat> {
    const op = this.op("PUT", "file", path, writeQuery(opts));
    return this.http.call({ ...op, bytes: { data, contentType: "application/octet-stream" }, idempotent: opts.force === true }, VolumeEntryStat, call);
  }

  /** A whole file's bytes (held in memory). @throws `not_found`. */
  async download(path: string, call?: CallOptions): Promise<Uint8Array> {
    const res = await this.http.exchange({ ...this.op("GET", "file", path), binaryAnswer: true }, call);
    return res.bytes ?? new Uint8Array();
  }

  /**
   * Whether the file at `path` holds exactly `data`. Its bytes are compared as they arrive and never
   * kept, and the download stops at the first difference. @throws `not_found`.
   */
  async holds(path: string, data: Uint8Array, call?: CallOptions): Promise<boolean> {
    let same = false;
    const readAnswer = async (body: AsyncIterable<Uint8Array>) => {
      same = await sameBytes(body, data);
    };
    await this.http.exchange({ ...this.op("GET", "file", path), readAnswer }, call);
    return same;
  }

  /** Closes the connection pool; in-flight requests finish first. */
  close(): Promise<void> {
    return this.http.close();
  }

  private op(method: Operation["method"], kind: "path" | "dir" | "file", path: string, query: Operation["query"] = {}): Operation {
    return {
      method,
      route: `/volumecontent/{volumeID}/${kind}`,
      params: { volumeID: this.volumeID },
      query: { path, ...query },
      auth: "bearer",
    };
  }
}

/** Whether `chunks` are exactly `data`; stops reading at the first difference. */
async function sameBytes(chunks: AsyncIterable<Uint8Array>, data: Uint8Array): Promise<boolean> {
  let at = 0;
  for await (const chunk of chunks) {
    const end = at + chunk.byteLength;
    if (end > data.byteLength || Buffer.compare(chunk, data.subarray(at, end)) !== 0) return false;
    at = end;
  }
  return at === data.byteLength;
}

function writeQuery(opts: WriteOptions): Operation["query"] {
  return { uid: opts.uid, gid: opts.gid, mode: opts.mode, force: opts.force === undefined ? undefined : String(opts.force) };
}
