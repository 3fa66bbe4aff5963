/**
 * POST /sandboxes/{id}/fork (docs/service.md#sandbox-fork): the running sandbox is checkpointed in
 * place (it keeps running, with its ID and expiry) and `count` new sandboxes start from that one
 * checkpoint, each with the parent's settings, environment and files. 201 with one result per
 * fork; a paused parent is a 409, a missing one a 404. Rules and messages from
 * infra: handlers/sandbox_fork.go (its timeout rules: timeout_helper.go).
 */
import { z } from "zod";
import { copyTree } from "../confined/copy-tree";
import { ApiError, json, type Reply, type RequestContext } from "../http";
import type { Stores } from "../store";
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, sandboxNotFound, type SandboxRecord } from "../store/sandbox-records";
import { parseBody } from "../validate";
import { sandboxID } from "./sandboxes";
import { sandboxView } from "./sandbox-views";

/** The spec's bounds, which the service's request validator applies before the handler runs. */
const ForkSchema = z.object({
  timeout: z.int32().min(0, "number must be at least 0").optional(),
  count: z.int32().min(1, "number must be at least 1").max(100, "number must be at most 100").optional(),
});

/** Handles POST /sandboxes/{id}/fork. */
export async function forkSandbox(stores: Stores, ctx: RequestContext): Promise<Reply> {
  const id = sandboxID(ctx.params.id ?? "");
  const raw = await ctx.json();
  const body = raw === undefined ? {} : parseBody(ForkSchema, raw);
  const timeoutMs = forkTimeout(body.timeout);
  const parent = stores.sandboxes.all().find((s) => s.sandboxID === id);
  if (!parent) throw new ApiError(404, sandboxNotFound(id));
  if (parent.state === "paused") throw new ApiError(409, `Sandbox '${id}' is paused and cannot be forked; resume it first`);
  // One checkpoint for every fork, as the service boots them all from one snapshot.
  const checkpoint = await stores.snapshots.capture(parent);
  try {
    const results = [];
    for (let i = 0; i < (body.count ?? 1); i++) results.push({ sandbox: sandboxView(await startFork(stores, parent, checkpoint, timeoutMs)) });
    return json(201, results);
  } finally {
    stores.snapshots.discard(checkpoint);
  }
}

/** The fork inherits what the service's snapshot keeps: settings, metadata, environment, mounts; not the expiry. */
async function startFork(stores: Stores, parent: SandboxRecord, checkpoint: string, timeoutMs: number): Promise<SandboxRecord> {
  const record = stores.sandboxes.create({
    templateID: parent.templateID, alias: parent.alias, envdVersion: parent.envdVersion, secure: parent.secure,
    cpuCount: parent.cpuCount, memoryMB: parent.memoryMB, diskSizeMB: parent.diskSizeMB,
    metadata: { ...parent.metadata }, envVars: { ...parent.envVars }, network: parent.network,
    allowInternetAccess: parent.allowInternetAccess, autoPause: parent.autoPause, autoResume: parent.autoResume,
    volumeMounts: parent.volumeMounts.map((m) => ({ ...m })), timeoutMs, defaults: parent.defaults,
  });
  await copyTree(checkpoint, record.rootDir, record.volumeMounts.map((m) => m.path));
  return record;
}

/** The handler's own rules (validateAndParseTimeout): 15 s when absent, more than 0, at most the plan's maximum. */
function forkTimeout(timeout: number | undefined): number {
  if (timeout === undefined) return DEFAULT_TIMEOUT_MS;
  if (timeout <= 0) throw new ApiError(400, "Timeout must be greater than 0");
  if (timeout * 1000 > MAX_TIMEOUT_MS) throw new ApiError(400, `Timeout cannot be greater than ${MAX_TIMEOUT_MS / 3_600_000} hours`);
  return timeout * 1000;
}
