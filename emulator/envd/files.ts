/**
 * envd's HTTP file transfer, `GET /files` (download) and `POST /files` (upload, multipart or raw
 * `application/octet-stream`, optionally gzip-encoded), which the official SDK's `files.read` and
 * `files.write` use. Paths follow the Connect services' rules (home-relative, sandbox paths in
 * answers); errors are envd's `{code, message}` JSON. Signed URLs are not supported: on a secured
 * sandbox these calls need the access token like every other call.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { rm, stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { Readable, Transform, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { ConnectError } from "@connectrpc/connect";
import { sendError } from "./gate";
import { followLinks } from "./links";
import { giveTo, makeDirsAs } from "./ownership";
import { assertWritable, hostPathOf, resolveSandboxPath } from "./paths";
import { homeOf, KNOWN_USERS, type RequestScope } from "./scope";

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
  const user = KNOWN_USERS.find((u) => u === name);
  if (!user) throw new FilesError(401, `error looking up user '${name}': user: unknown user ${name}`);
  return { ...scope, user };
}

/** The request's path: as asked (for messages), with its links followed in the sandbox, on the host. */
async function resolve(scope: RequestScope, requested: string): Promise<{ sandbox: string; real: string; host: string }> {
  try {
    const sandbox = resolveSandboxPath(requested, homeOf(scope));
    const real = await followLinks(scope.runtime, sandbox, true);
    return { sandbox, real, host: hostPathOf(scope.runtime, real) };
  } catch (err) {
    const reason = err instanceof ConnectError ? err.rawMessage : String(err);
    throw new FilesError(400, `error expanding and resolving path '${requested}': ${reason}`);
  }
}

function isReadOnly(scope: RequestScope, sandboxPath: string): boolean {
  try {
    assertWritable(scope.runtime, sandboxPath);
    return false;
  } catch {
    return true;
  }
}

async function download(res: ServerResponse, scope: RequestScope, query: URLSearchParams): Promise<void> {
  const at = await resolve(scope, query.get("path") ?? "");
  const st = await stat(at.host).catch(() => undefined);
  if (!st) throw new FilesError(404, `path '${at.sandbox}' does not exist`);
  if (st.isDirectory()) throw new FilesError(400, `path '${at.sandbox}' is a directory`);
  res.writeHead(200, {
    "content-type": "application/octet-stream",
    "content-length": st.size,
    "content-disposition": `inline; filename="${path.basename(at.sandbox).replaceAll('"', "")}"`,
    "last-modified": st.mtime.toUTCString(),
  });
  await pipeline(createReadStream(at.host), res);
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

/** Writes one upload to a sandbox path, creating parent directories; returns envd's entry. */
async function store(scope: RequestScope, requested: string, body: Readable) {
  const at = await resolve(scope, requested);
  if (isReadOnly(scope, at.real)) throw new FilesError(400, `error opening file '${at.sandbox}': read-only file system`);
  const existing = await stat(at.host).catch(() => undefined);
  if (existing?.isDirectory()) throw new FilesError(400, `path '${at.sandbox}' is a directory`);
  await makeDirsAs(scope, path.dirname(at.host));
  try {
    await pipeline(body, capped(scope.limits.fileSizeBytes, at.sandbox), createWriteStream(at.host) as Writable);
  } catch (err) {
    // No half-written new file stays behind.
    if (!existing) await rm(at.host, { force: true });
    throw err;
  }
  if (!existing) await giveTo(scope, at.host);
  return { name: path.basename(at.sandbox), type: "file", path: at.sandbox };
}

async function upload(req: IncomingMessage, scope: RequestScope, query: URLSearchParams) {
  const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  const gzip = (req.headers["content-encoding"] ?? "").toLowerCase() === "gzip";
  const raw: Readable = gzip ? req.pipe(createGunzip()) : req;
  if (type === "application/octet-stream") {
    const target = query.get("path");
    if (!target) throw new FilesError(400, "path query parameter is required for raw body upload");
    return [await store(scope, target, raw)];
  }
  if (!type?.startsWith("multipart/")) {
    throw new FilesError(400, `unsupported content type: ${type}, expected multipart/form-data or application/octet-stream`);
  }
  // The platform's own multipart parser (fetch's Request.formData); uploads are held in memory.
  const form = await new Request("http://envd/files", {
    method: "POST",
    headers: { "content-type": String(req.headers["content-type"]) },
    body: Readable.toWeb(raw) as ReadableStream,
    duplex: "half",
  } as RequestInit).formData();
  const entries = [];
  for (const part of form.getAll("file")) {
    if (typeof part === "string") continue;
    const target = query.get("path") ?? part.name;
    entries.push(await store(scope, target, Readable.fromWeb(part.stream() as never)));
  }
  return entries;
}

/** Serves `GET`/`POST /files`; other methods get 405. */
export async function serveFiles(req: IncomingMessage, res: ServerResponse, scope: RequestScope): Promise<void> {
  const query = new URL(req.url ?? "/", "http://envd").searchParams;
  try {
    const user = withUser(scope, query);
    if (req.method === "GET") return await download(res, user, query);
    if (req.method !== "POST") throw new FilesError(405, `method ${req.method} not allowed`);
    const entries = await upload(req, user, query);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(entries));
  } catch (err) {
    if (res.headersSent) return void res.destroy();
    if (err instanceof FilesError) return sendError(res, err.status, err.message);
    sendError(res, 500, `error handling file request: ${(err as Error).message}`);
  }
}
