/**
 * envd's HTTP file transfer, `GET /files` (download) and `POST /files` (upload, multipart or raw
 * `application/octet-stream`, optionally gzip-encoded, streamed to the files as it arrives), which
 * the official SDK's `files.read` and `files.write` use. Paths follow the Connect services' rules
 * (home-relative, sandbox paths in answers); errors are envd's `{code, message}` JSON. On a secure
 * sandbox each call needs the access token or a signed URL (./signing.ts). An upload's
 * `X-Metadata-*` headers become the files' metadata (./file-metadata.ts); `/proc` is read as the
 * sandbox's commands see it (./procfs.ts).
 */
import { constants } from "node:fs";
import { open, unlink } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { pipeline as streamPipeline, type Readable, Transform, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { ConnectError } from "@connectrpc/connect";
import { O_PATH, VIA_FD } from "../confined/dir";
import { openAt, statAt } from "../confined/ops";
import type { Located } from "../confined/walk";
import { metadataFromHeaders, metadataProblem, readMetadata, writeMetadata, type FileMetadata } from "./file-metadata";
import { sendError } from "./gate";
import { sandboxMayRead } from "./host-access";
import { locateIn } from "./links";
import { boundaryOf, MultipartError, multipartParts } from "./multipart";
import { giveTo, makeDirAs } from "./ownership";
import { resolveSandboxPath } from "./paths";
import { ProcReadError, procPathOf, readProcFile } from "./procfs";
import { homeOf, type RequestScope } from "./scope";
import { checkSigning, operationOf } from "./signing";

/** An answer of the file API that is not a success. */
class FilesError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The scope with the `username` query parameter applied (unknown user: 401, as envd). */
function withUser(scope: RequestScope, query: URLSearchParams): RequestScope {
  const name = query.get("username");
  if (name === null || name === "") return scope;
  const user = scope.accounts.find((a) => a.name === name);
  if (!user) throw new FilesError(401, `error looking up user '${name}': user: unknown user ${name}`);
  return { ...scope, user };
}

/**
 * Finds the request's path in the sandbox's tree, links followed there (./links.ts); close it
 * after use. `makeParents`: missing dirs on the way are made, as the calling user's.
 */
async function find(scope: RequestScope, requested: string, makeParents = false): Promise<{ sandbox: string; at: Located }> {
  let sandbox = requested;
  try {
    sandbox = resolveSandboxPath(requested, homeOf(scope));
    const at = await locateIn(scope.runtime, sandbox, { followLast: true, ...(makeParents ? { makeParent: makeDirAs(scope) } : {}) });
    return { sandbox, at };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new FilesError(404, `path '${sandbox}' does not exist`);
    if (code === "EROFS") throw new FilesError(400, `error opening file '${sandbox}': read-only file system`);
    const reason = err instanceof ConnectError ? err.rawMessage : (code ?? String(err));
    throw new FilesError(400, `error expanding and resolving path '${requested}': ${reason}`);
  }
}

/** Sends a `/proc` file (./procfs.ts): generated on read, so its length is known only once read. */
async function downloadProc(res: ServerResponse, scope: RequestScope, sandbox: string): Promise<void> {
  const bytes = await readProcFile(scope, sandbox, scope.limits.fileSizeBytes).catch((err: unknown) => {
    throw err instanceof ProcReadError ? new FilesError(err.status, err.message) : err;
  });
  res.writeHead(200, {
    "content-type": "application/octet-stream",
    "content-length": bytes.length,
    "content-disposition": `inline; filename="${path.basename(sandbox).replaceAll('"', "")}"`,
  });
  res.end(bytes);
}

async function download(res: ServerResponse, scope: RequestScope, query: URLSearchParams): Promise<void> {
  const requested = query.get("path") ?? "";
  const proc = procPathOf(requested, homeOf(scope));
  if (proc) return downloadProc(res, scope, proc);
  const { sandbox, at } = await find(scope, requested);
  try {
    const st = await statAt(at, { followLast: true });
    if (!st) throw new FilesError(404, `path '${sandbox}' does not exist`);
    if (st.isDirectory()) throw new FilesError(400, `path '${sandbox}' is a directory`);
    // O_NONBLOCK: a FIFO must not hang the request; only a regular file is sent.
    const handle = await openAt(at, constants.O_RDONLY | constants.O_NONBLOCK);
    const opened = await handle.stat().catch(() => undefined);
    if (!opened?.isFile() || !sandboxMayRead(scope.runtime, opened)) {
      await handle.close();
      if (opened && !opened.isFile()) throw new FilesError(400, `path '${sandbox}' is not a regular file`);
      throw new FilesError(500, `error opening file '${sandbox}': open ${sandbox}: permission denied`);
    }
    res.writeHead(200, {
      "content-type": "application/octet-stream",
      "content-length": opened.size,
      "content-disposition": `inline; filename="${path.basename(sandbox).replaceAll('"', "")}"`,
      "last-modified": opened.mtime.toUTCString(),
    });
    // The read stops at the size sent as Content-Length, with no read for the end of the file after
    // the last bytes: the answer ends (writableEnded) as soon as the client can have all of it, so a
    // stop of the sandbox caused by the client's next request on that keep-alive connection (a kill,
    // when the API and the sandbox share an origin) leaves the connection alone (./sandboxes.ts, cut).
    if (opened.size === 0) return void (await handle.close(), res.end());
    await pipeline(handle.createReadStream({ end: opened.size - 1 }), res);
  } finally {
    await at.close();
  }
}

/** Passes bytes through until there are more than `max`; then fails the upload with 507. */
function capped(max: number, sandboxPath: string): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > max) return done(new FilesError(507, `error writing file '${sandboxPath}': larger than the sandbox's file size limit (${max} bytes)`));
      done(null, chunk);
    },
  });
}

/**
 * Writes one upload to a sandbox path, creating parent directories, and replaces the file's
 * metadata with the upload's (none clears it, as envd rewrites its xattrs on every upload);
 * returns envd's entry, with the metadata the file now has.
 */
async function store(scope: RequestScope, requested: string, body: Readable, metadata: FileMetadata | undefined) {
  let kept: FileMetadata | undefined;
  const { sandbox, at } = await find(scope, requested, true);
  try {
    if (at.readOnly) throw new FilesError(400, `error opening file '${sandbox}': read-only file system`);
    const existing = await statAt(at, { followLast: true });
    if (existing?.isDirectory()) throw new FilesError(400, `path '${sandbox}' is a directory`);
    const handle = await openAt(at, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o644).catch((err: NodeJS.ErrnoException) => {
      throw new FilesError(err.code === "ELOOP" ? 400 : 500, `error opening file '${sandbox}': ${err.code ?? err.message}`);
    });
    try {
      if (!existing) await giveTo(scope, handle);
      const inode = await handle.stat({ bigint: true });
      // A name of this very inode that outlives the stream (which closes the handle): the metadata
      // goes to the file written, wherever its name is by now.
      const named = VIA_FD ? await open(`/proc/self/fd/${handle.fd}`, O_PATH) : undefined;
      try {
        await pipeline(body, capped(scope.limits.fileSizeBytes, sandbox), handle.createWriteStream() as Writable);
        const osPath = named ? `/proc/self/fd/${named.fd}` : "";
        await writeMetadata(inode, osPath, metadata, true);
        kept = await readMetadata(inode, osPath, true);
      } finally {
        await named?.close();
      }
    } catch (err) {
      await handle.close().catch(() => undefined);
      // No half-written new file stays behind.
      if (!existing) await unlink(at.dir.at(at.name)).catch(() => undefined);
      throw err;
    }
  } finally {
    await at.close();
  }
  return { name: path.basename(sandbox), type: "file", path: sandbox, ...(kept ? { metadata: kept } : {}) };
}

/**
 * The request's body, inflated when it is gzip-encoded, and then at most `max` bytes in all (the
 * sandbox's file size limit): a few KiB of gzip can stand for gigabytes, which must stop at the
 * limit rather than fill the disk (507, envd's answer for a full disk).
 */
function bodyOf(req: IncomingMessage, max: number): Readable {
  if ((req.headers["content-encoding"] ?? "").toLowerCase() !== "gzip") return req;
  let seen = 0;
  const bound = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > max) return done(new FilesError(507, `error decompressing request body: it inflates to more than the sandbox's file size limit (${max} bytes)`));
      done(null, chunk);
    },
  });
  // Errors reach whoever reads `bound`; this callback only keeps them from going unhandled.
  return streamPipeline(req, createGunzip(), bound, () => undefined);
}

async function upload(req: IncomingMessage, scope: RequestScope, query: URLSearchParams) {
  // Checked before anything is written: a refused upload creates no file.
  const metadata = metadataFromHeaders(req.headers);
  const problem = metadataProblem(metadata);
  if (problem) throw new FilesError(400, `invalid metadata: ${problem}`);
  const contentType = String(req.headers["content-type"] ?? "");
  const type = contentType.split(";")[0]?.trim().toLowerCase();
  if (type === "application/octet-stream") {
    const target = query.get("path");
    if (!target) throw new FilesError(400, "path query parameter is required for raw body upload");
    return [await store(scope, target, bodyOf(req, scope.limits.fileSizeBytes), metadata)];
  }
  if (!type?.startsWith("multipart/")) {
    throw new FilesError(400, `unsupported content type: ${type}, expected multipart/form-data or application/octet-stream`);
  }
  const boundary = boundaryOf(contentType);
  if (!boundary) throw new FilesError(500, "error parsing multipart form: no multipart boundary param in Content-Type");
  // Each part streams to its file as it arrives (./multipart.ts); parts not named "file" are skipped.
  const entries = [];
  try {
    for await (const part of multipartParts(bodyOf(req, scope.limits.fileSizeBytes), boundary)) {
      // envd reads every part named "file"; the path query, when given, wins over its filename.
      if (part.name !== "file") continue;
      const target = query.get("path") ?? part.filename;
      if (target === undefined) throw new FilesError(400, "error getting multipart custom part file name: filename not found in Content-Disposition header");
      entries.push(await store(scope, target, part.body, metadata));
    }
  } catch (err) {
    if (err instanceof MultipartError) throw new FilesError(500, `error reading form: ${err.message}`);
    throw err;
  }
  return entries;
}

/** Serves `GET`/`POST /files`; other methods get 405. */
export async function serveFiles(req: IncomingMessage, res: ServerResponse, scope: RequestScope): Promise<void> {
  const query = new URL(req.url ?? "/", "http://envd").searchParams;
  try {
    const refused = checkSigning(req, query, scope.runtime, operationOf(req.method));
    if (refused) throw new FilesError(refused.status, refused.message);
    const user = withUser(scope, query);
    if (req.method === "GET") return await download(res, user, query);
    if (req.method !== "POST") throw new FilesError(405, `method ${req.method} not allowed`);
    const entries = await upload(req, user, query);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(entries));
  } catch (err) {
    if (res.headersSent) return void res.destroy();
    if (err instanceof FilesError) return sendError(res, err.status, err.message);
    // zlib's codes: a body that is not gzip after all.
    if ((err as NodeJS.ErrnoException).code?.startsWith("Z_")) return sendError(res, 400, `error decompressing request body: ${(err as Error).message}`);
    sendError(res, 500, `error handling file request: ${(err as Error).message}`);
  }
}
