/**
 * The volume content API (E2B spec/openapi-volumecontent.yml; service-facts §5) on the platform's
 * origin: stat, chmod/chown and delete a path, list and make directories, download and upload files,
 * all inside the volume's host directory, which sandboxes mount. Auth is `Authorization: Bearer
 * <volume token>` as GET /volumes/{id} mints it; the token must be for the volume in the path.
 * Errors use this API's own shape, whose `code` is a string.
 */
import { chmod, chown, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { ApiError, json, noContent, type Reply, type RequestContext } from "../http";
import type { Route } from "../router";
import type { VolumeStore } from "../store/volumes";
import { parseBody, queryInt } from "../validate";
import { entryStat, listDir, volumePath, type VolumePath } from "./entries";

const UINT32 = z.int().min(0).max(2 ** 32 - 1);
const MetadataSchema = z.object({ uid: UINT32.optional(), gid: UINT32.optional(), mode: UINT32.optional() });
/**
 * Largest upload body. The service documents no limit; the emulator holds a body in memory, and the
 * provider's seeds send at most 64 MiB per file (sdk/volume-content-seed.ts), so that is accepted.
 */
export const MAX_VOLUME_FILE_BYTES = 64 * 1024 * 1024;
/** Deepest listing one request may ask for; the spec bounds it only by uint32. */
const MAX_DEPTH = 64;

/** The seven /volumecontent routes over the volume store. */
export function volumeContentRoutes(volumes: VolumeStore): Route[] {
  const route = (method: Route["method"], kind: string, handler: (at: VolumePath, ctx: RequestContext) => Promise<Reply>): Route => ({
    method, pattern: `/volumecontent/:id/${kind}`, auth: "none",
    handler: (ctx) => guarded(() => handler(resolve(volumes, ctx, kind === "file"), ctx)),
  });
  return [
    route("GET", "path", async (at) => json(200, await entryStat(at))),
    route("PATCH", "path", async (at, ctx) => {
      const meta = parseBody(MetadataSchema, await ctx.json());
      await entryStat(at);
      await applyMetadata(at, meta);
      return json(200, await entryStat(at));
    }),
    route("DELETE", "path", async (at) => {
      if (at.path === "/") throw new ApiError(400, "the volume's root cannot be deleted");
      await entryStat(at);
      await rm(at.host, { recursive: true, force: true });
      return noContent();
    }),
    route("GET", "dir", async (at, ctx) => json(200, await listDir(at, queryInt(ctx.query, "depth", 1, 1, MAX_DEPTH)))),
    route("POST", "dir", async (at, ctx) => {
      const force = ctx.query.get("force") === "true";
      if (!force) await parentMustExist(at);
      const made = await mkdir(at.host, { recursive: true });
      if (made !== undefined) await giveToSandboxUser(at, made);
      await applyMetadata(at, metadataFromQuery(ctx.query));
      return json(201, await entryStat(at));
    }),
    route("GET", "file", async (at) => {
      const stat = await entryStat(at);
      if (stat.type !== "file") throw new ApiError(404, `path '${at.path}' is not a file`);
      return { status: 200, body: await readFile(at.host) };
    }),
    route("PUT", "file", async (at, ctx) => {
      const force = ctx.query.get("force") === "true";
      await parentMustExist(at);
      const exists = await entryStat(at).then(() => true, () => false);
      if (exists && !force) throw new ApiError(409, `path '${at.path}' already exists; set force to overwrite it`);
      await writeFile(at.host, await ctx.bytes(MAX_VOLUME_FILE_BYTES));
      if (!exists) await giveToSandboxUser(at, at.host);
      await applyMetadata(at, metadataFromQuery(ctx.query));
      return json(201, await entryStat(at));
    }),
  ];
}

/** The volume path a request names, after checking its token grants that volume. */
function resolve(volumes: VolumeStore, ctx: RequestContext, followLast: boolean): VolumePath {
  const match = /^Bearer\s+(.+)$/i.exec(String(ctx.headers.authorization ?? "").trim());
  const granted = match?.[1] ? volumes.verifyToken(match[1]) : undefined;
  if (!granted || granted !== ctx.params.id?.toLowerCase()) throw new ApiError(401, "invalid or missing volume token");
  return { ...volumePath(volumes.get(granted).hostDir, ctx.query.get("path"), followLast), idBase: volumes.idBase };
}

/** Runs a handler; its errors become this API's `{code: "<status>", message}`. */
async function guarded(run: () => Promise<Reply>): Promise<Reply> {
  try {
    return await run();
  } catch (err) {
    const status = err instanceof ApiError ? err.status : 500;
    return json(status, { code: String(status), message: (err as Error).message }, err instanceof ApiError ? err.headers : undefined);
  }
}

async function parentMustExist(at: VolumePath): Promise<void> {
  const parent = await entryStat({ path: dirname(at.path), host: dirname(at.host) }).catch(() => undefined);
  if (parent?.type !== "directory") throw new ApiError(404, `parent of '${at.path}' not found`);
}

function metadataFromQuery(query: URLSearchParams): z.infer<typeof MetadataSchema> {
  const pick = (name: string) => (query.has(name) ? queryInt(query, name, 0, 0, 2 ** 32 - 1) : undefined);
  return { uid: pick("uid"), gid: pick("gid"), mode: pick("mode") };
}

/**
 * What this API makes belongs, with isolated sandboxes, to their `user` (uid 1000), so a sandbox
 * can change it, as files a sandbox makes do. `first` is the outermost new path (mkdir -p).
 */
async function giveToSandboxUser(at: VolumePath, first: string): Promise<void> {
  if (at.idBase === undefined) return;
  const owner = at.idBase + 1000;
  for (let p = at.host; ; p = dirname(p)) {
    await chown(p, owner, owner);
    if (p === first || p === dirname(p)) return;
  }
}

/**
 * chmod, and chown when an owner is given, in the sandboxes' ids (the emulator's user may not be
 * allowed: then 400).
 */
async function applyMetadata(at: VolumePath, meta: z.infer<typeof MetadataSchema>): Promise<void> {
  const host = at.host;
  if (meta.mode !== undefined) await chmod(host, meta.mode);
  if (meta.uid === undefined && meta.gid === undefined) return;
  const id = (v: number | undefined) => (v === undefined ? -1 : v + (at.idBase ?? 0));
  await chown(host, id(meta.uid), id(meta.gid)).catch((err: NodeJS.ErrnoException) => {
    throw new ApiError(400, `cannot change the owner of the path: ${err.code ?? err.message}`);
  });
}
