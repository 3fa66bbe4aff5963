/**
 * The volume content API (E2B spec/openapi-volumecontent.yml; docs/service.md#volume-content-api) on the platform's
 * origin: stat, chmod/chown and delete a path, list and make directories, download and upload files,
 * all inside the volume's host directory, which sandboxes mount. Auth is `Authorization: Bearer
 * <volume token>` as GET /volumes/{id} mints it; the token must be for the volume in the path.
 * Errors use this API's own shape, whose `code` is a string.
 *
 * Every path is found with entries.ts `find`, which follows links only inside the volume, and
 * every change is made through the open dir that holds the entry (../confined/ops.ts).
 */
import { constants } from "node:fs";
import { z } from "zod";
import { chmodAt, chownAt, mkdirAt, openAt, removeAt, statAt } from "../confined/ops";
import type { Dir } from "../confined/dir";
import type { Located } from "../confined/walk";
import { ApiError, json, noContent, ValidationError, type Reply, type RequestContext } from "../http";
import type { Route } from "../router";
import type { VolumeStore } from "../store/volumes";
import { parseBody, queryInt } from "../validate";
import { asApiError, entryOf, entryStat, find, listDir, requestedPath, type VolumeRequest } from "./entries";

const UINT32 = z.int().min(0).max(2 ** 32 - 1);
const MetadataSchema = z.object({ uid: UINT32.optional(), gid: UINT32.optional(), mode: UINT32.optional() });
type Metadata = z.infer<typeof MetadataSchema>;
/**
 * Largest upload body. The service documents no limit; the emulator holds a body in memory, and the
 * provider's seeds send at most 64 MiB per file (provider/kinds/volume/content-seed.ts), so that is accepted.
 */
export const MAX_VOLUME_FILE_BYTES = 64 * 1024 * 1024;
/** Deepest listing one request may ask for; the spec bounds it only by uint32. */
const MAX_DEPTH = 64;

type VolumeHandler = (req: VolumeRequest, ctx: RequestContext) => Promise<Reply>;

/** The seven /volumecontent routes over the volume store. */
export function volumeContentRoutes(volumes: VolumeStore): Route[] {
  const route = (method: Route["method"], kind: string, handler: VolumeHandler): Route => ({
    method, pattern: `/volumecontent/:id/${kind}`, auth: "none",
    handler: (ctx) => guarded(async () => {
      const req = resolve(volumes, ctx);
      return handler(req, ctx).catch((err: NodeJS.ErrnoException) => {
        throw asApiError(err, req.path);
      });
    }),
  });
  return [
    route("GET", "path", statPath),
    route("PATCH", "path", changeMetadata),
    route("DELETE", "path", deletePath),
    route("GET", "dir", listDirectory),
    route("POST", "dir", makeDirectory),
    route("GET", "file", downloadFile),
    route("PUT", "file", uploadFile),
  ];
}

/** GET path: the entry's stat, the last link not followed. */
const statPath: VolumeHandler = (req) => using(find(req, {}), (at) => entryStat(entryOf(at, req.idBase)).then((s) => json(200, s)));

/** PATCH path: chmod and chown from the body. */
const changeMetadata: VolumeHandler = async (req, ctx) => {
  const meta = parseBody(MetadataSchema, await ctx.json());
  // chmod and chown follow a link, as the service's do, but inside the volume.
  return using(find(req, { followLast: true }), async (at) => {
    await entryStat(entryOf(at, req.idBase));
    await applyMetadata(at, req.idBase, meta);
    return json(200, await entryStat(entryOf(at, req.idBase)));
  });
};

/** DELETE path: removes the entry itself (a link, never its target); never the root. */
const deletePath: VolumeHandler = (req) => {
  if (req.path === "/") throw new ApiError(400, "the volume's root cannot be deleted");
  return using(find(req, {}), async (at) => {
    await entryStat(entryOf(at, req.idBase));
    await removeAt({ ...at, follow: false });
    return noContent();
  });
};

/** GET dir: the entries down to `depth`. */
const listDirectory: VolumeHandler = (req, ctx) =>
  using(find(req, { followLast: true }), async (at) => json(200, await listDir(at, req.idBase, queryInt(ctx.query, "depth", 1, 1, MAX_DEPTH))));

/** POST dir: mkdir (its missing parents too with `force`), then the metadata in the query. */
const makeDirectory: VolumeHandler = (req, ctx) => {
  const force = ctx.query.get("force") === "true";
  const makeParent = force ? (dir: Dir, name: string) => makeOwnedDir({ dir, name, follow: false }, req.idBase) : undefined;
  return using(find(req, { followLast: true, ...(makeParent ? { makeParent } : {}) }, parentMissing(req)), async (at) => {
    const existing = await statAt(at);
    if (existing && !existing.isDirectory()) throw new ApiError(400, `path '${req.path}' exists and is not a directory`);
    if (!existing) await makeOwnedDir(at, req.idBase);
    await applyMetadata(at, req.idBase, metadataFromQuery(ctx.query));
    return json(201, await entryStat(entryOf(at, req.idBase)));
  });
};

/** GET file: a regular file's bytes. */
const downloadFile: VolumeHandler = (req) =>
  using(find(req, { followLast: true }), async (at) => {
    const stat = await entryStat(entryOf(at, req.idBase));
    if (stat.type !== "file") throw new ApiError(404, `path '${req.path}' is not a file`);
    // O_NONBLOCK: what is opened may have become a FIFO since, which must not hang the request.
    const handle = await openAt(at, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      if (!(await handle.stat()).isFile()) throw new ApiError(404, `path '${req.path}' is not a file`);
      return { status: 200, body: await handle.readFile() };
    } finally {
      await handle.close();
    }
  });

/** PUT file: writes the body to a new file, or over an existing one with `force`, then the metadata in the query. */
const uploadFile: VolumeHandler = (req, ctx) =>
  using(find(req, { followLast: true }, parentMissing(req)), async (at) => {
    const force = ctx.query.get("force") === "true";
    const existing = await statAt(at);
    if (existing?.isDirectory()) throw new ApiError(400, `path '${req.path}' is a directory`);
    if (existing && !force) throw new ApiError(409, `path '${req.path}' already exists; set force to overwrite it`);
    const body = await ctx.bytes(MAX_VOLUME_FILE_BYTES);
    // O_EXCL for a new file: what is made here is new, so it may be given to the sandboxes' user.
    const handle = await openAt(at, constants.O_WRONLY | constants.O_CREAT | (existing ? constants.O_TRUNC : constants.O_EXCL), 0o644).catch(
      (err: NodeJS.ErrnoException) => {
        throw err.code === "EEXIST" ? new ApiError(409, `path '${req.path}' already exists; set force to overwrite it`) : err;
      },
    );
    try {
      await handle.writeFile(body);
      if (!existing && req.idBase !== undefined) await handle.chown(req.idBase + 1000, req.idBase + 1000);
    } finally {
      await handle.close();
    }
    await applyMetadata(at, req.idBase, metadataFromQuery(ctx.query));
    return json(201, await entryStat(entryOf(at, req.idBase)));
  });

/** The request's volume and path, after checking its token grants that volume. */
function resolve(volumes: VolumeStore, ctx: RequestContext): VolumeRequest {
  const match = /^Bearer\s+(.+)$/i.exec(String(ctx.headers.authorization ?? "").trim());
  const granted = match?.[1] ? volumes.verifyToken(match[1]) : undefined;
  if (!granted || granted !== ctx.params.id?.toLowerCase()) throw new ApiError(401, "invalid or missing volume token");
  const idBase = volumes.idBase;
  return { path: requestedPath(ctx.query.get("path")), hostDir: volumes.get(granted).hostDir, ...(idBase === undefined ? {} : { idBase }) };
}

/** Runs `use` on a located path and closes it after. */
async function using<T>(finding: Promise<Located>, use: (at: Located) => Promise<T>): Promise<T> {
  const at = await finding;
  try {
    return await use(at);
  } finally {
    await at.close();
  }
}

/** Runs a handler; its errors become this API's `{code: "<status>", message}`. */
async function guarded(run: () => Promise<Reply>): Promise<Reply> {
  try {
    return await run();
  } catch (err) {
    const status = err instanceof ApiError ? err.status : 500;
    const message = err instanceof ValidationError ? err.detail : (err as Error).message;
    return json(status, { code: String(status), message }, err instanceof ApiError ? err.headers : undefined);
  }
}

const parentMissing = (req: VolumeRequest) => `parent of '${req.path}' not found`;

function metadataFromQuery(query: URLSearchParams): Metadata {
  const pick = (name: string) => (query.has(name) ? queryInt(query, name, 0, 0, 2 ** 32 - 1) : undefined);
  return { uid: pick("uid"), gid: pick("gid"), mode: pick("mode") };
}

/**
 * mkdir, the new dir belonging, with isolated sandboxes, to their `user` (uid 1000), so a sandbox
 * can change it, as dirs a sandbox makes do. Something there already (a race) is left as it is.
 */
async function makeOwnedDir(at: Pick<Located, "dir" | "name" | "follow">, idBase: number | undefined): Promise<void> {
  const made = await mkdirAt(at).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code !== "EEXIST") throw err;
      return false;
    },
  );
  if (made && idBase !== undefined) await chownAt(at, idBase + 1000, idBase + 1000);
}

/**
 * chmod, and chown when an owner is given, in the sandboxes' ids (the emulator's user may not be
 * allowed: then 400). Both act on the entry found, never on a link's target.
 */
async function applyMetadata(at: Located, idBase: number | undefined, meta: Metadata): Promise<void> {
  if (meta.mode !== undefined) await chmodAt(at, meta.mode);
  if (meta.uid === undefined && meta.gid === undefined) return;
  const id = (v: number | undefined) => (v === undefined ? -1 : v + (idBase ?? 0));
  await chownAt(at, id(meta.uid), id(meta.gid)).catch((err: NodeJS.ErrnoException) => {
    throw new ApiError(400, `cannot change the owner of the path: ${err.code ?? err.message}`);
  });
}
