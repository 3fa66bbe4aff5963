/**
 * Sandbox snapshots (docs/service.md#sandbox-snapshots): `POST /sandboxes/{id}/snapshots` takes
 * one (201 SnapshotInfo), `GET /snapshots` lists them, newest first, paged, filtered by the sandbox
 * they were taken of or by name. A snapshot is deleted with `DELETE /templates/{id}` (templates.ts)
 * and started from with `POST /sandboxes` (sandbox-base.ts). Rules and messages from
 * infra: handlers/snapshot_template_create.go, snapshot_template_list.go and shared/pkg/id/id.go.
 */
import { z } from "zod";
import { ApiError, json, type Reply, type RequestContext } from "../http";
import { paginate } from "../paging";
import type { Route } from "../router";
import type { Stores } from "../store";
import { sandboxNotFound } from "../store/sandbox-records";
import { newestOf, snapshotIDOf, snapshotNames, type SandboxSnapshotRecord, type SnapshotBuild } from "../store/sandbox-snapshots";
import { TEAM_SLUG } from "../store/templates";
import { parseBody, queryInt } from "../validate";
import { forkSandbox } from "./sandbox-fork";
import { sandboxID } from "./sandboxes";

/** SandboxSnapshotRequest; `memory: false` (the newest SDKs') takes the files only (docs/service.md#sandbox-fields-of-the-newest-sdks). */
const SnapshotRequestSchema = z.object({ name: z.string().optional(), memory: z.boolean().optional() });
const IDENTIFIER_RE = /^[a-z0-9-_]+$/;
const TAG_RE = /^[a-z0-9-_.]+$/;

/** POST /sandboxes/{id}/snapshots, GET /snapshots, and fork (a snapshot that is started at once). */
export function snapshotRoutes(stores: Stores): Route[] {
  return [
    { method: "POST", pattern: "/sandboxes/:id/fork", auth: "apiKey", handler: (ctx) => forkSandbox(stores, ctx) },
    { method: "POST", pattern: "/sandboxes/:id/snapshots", auth: "apiKey", handler: (ctx) => takeSnapshot(stores, ctx) },
    { method: "GET", pattern: "/snapshots", auth: "apiKey", handler: (ctx) => listSnapshots(stores, ctx.query) },
  ];
}

async function takeSnapshot(stores: Stores, ctx: RequestContext): Promise<Reply> {
  const id = sandboxID(ctx.params.id ?? "");
  const body = parseBody(SnapshotRequestSchema, await ctx.json());
  const name = body.name === undefined ? undefined : parseName(body.name);
  if (name && stores.templates.resolve(name.alias)) {
    // The service would add the snapshot as a build of that template; the emulator keeps the two apart.
    throw new ApiError(400, `Invalid name: '${name.alias}' is the name of a template, not of a snapshot`);
  }
  const sandbox = stores.sandboxes.all().find((s) => s.sandboxID === id && s.state === "running");
  // A paused sandbox is not running anywhere to be snapshotted: the service answers as for no sandbox.
  if (!sandbox) throw new ApiError(404, sandboxNotFound(id));
  const { snapshot, build } = await stores.snapshots.take(sandbox, name && { alias: name.alias, tag: name.tag ?? "default" }, { memory: body.memory !== false });
  return json(201, infoOf(snapshot, build));
}

function listSnapshots(stores: Stores, query: URLSearchParams): Reply {
  const limit = queryInt(query, "limit", 100, 1, 100);
  const bySandbox = query.get("sandboxID");
  const from = bySandbox === null ? undefined : sandboxID(bySandbox);
  const rawName = query.get("name");
  let picked: SandboxSnapshotRecord[] = stores.snapshots.all();
  // A bare name matches builds of any tag; `name:tag` (`:default` included) only that tag's.
  let tag: string | undefined;
  if (rawName !== null) {
    const name = parseName(rawName);
    tag = rawName.includes(":") ? (name.tag ?? "default") : undefined;
    const found = stores.snapshots.resolve(name.alias)?.snapshot;
    picked = found ? [found] : [];
  }
  const rows = picked
    .filter((s) => from === undefined || s.sandboxID === from)
    .map((snapshot) => ({ snapshot, build: newestOf(snapshot, tag) }))
    .filter((row): row is { snapshot: SandboxSnapshotRecord; build: SnapshotBuild } => row.build !== undefined);
  const key = (row: (typeof rows)[number]) => ({ t: row.snapshot.createdAt.getTime(), id: row.snapshot.templateID });
  const { page, next } = paginate(rows, key, { limit, order: "desc", token: query.get("nextToken") });
  return json(200, page.map((row) => infoOf(row.snapshot, row.build)), next ? { "X-Next-Token": next } : undefined);
}

function infoOf(snapshot: SandboxSnapshotRecord, build: SnapshotBuild) {
  return { snapshotID: snapshotIDOf(snapshot, build), names: snapshotNames(snapshot) };
}

/**
 * `[namespace/]alias[:tag]` as the service parses a name (id.ParseName): trimmed, lower-cased,
 * each part checked; `tag` is undefined for none or `default`. A namespace must be the team's.
 */
export function parseName(raw: string): { alias: string; tag: string | undefined } {
  const input = raw.trim();
  const colon = input.indexOf(":");
  const identifier = colon >= 0 ? input.slice(0, colon) : input;
  const slash = identifier.indexOf("/");
  const clean = (value: string, what: string, re: RegExp) => {
    const cleaned = value.trim().toLowerCase();
    if (!re.test(cleaned)) throw new ApiError(400, `Invalid name: invalid ${what}: ${value}`);
    return cleaned;
  };
  const tag = colon >= 0 ? clean(input.slice(colon + 1), "tag", TAG_RE) : undefined;
  const namespace = slash >= 0 ? clean(identifier.slice(0, slash), "namespace", IDENTIFIER_RE) : undefined;
  const alias = clean(slash >= 0 ? identifier.slice(slash + 1) : identifier, "template ID", IDENTIFIER_RE);
  if (namespace !== undefined && namespace !== TEAM_SLUG) {
    throw new ApiError(400, `namespace '${namespace}' must match your team '${TEAM_SLUG}'`);
  }
  return { alias, tag: tag === "default" ? undefined : tag };
}
