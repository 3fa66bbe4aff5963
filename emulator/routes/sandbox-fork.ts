/**
 * POST /sandboxes/{id}/fork (docs/service.md#sandbox-fork): the running sandbox is checkpointed in
 * place (it keeps running, with its ID and expiry) and `count` new sandboxes start from that one
 * checkpoint, each with the parent's settings, environment and files. 201 with one result per
 * fork, a sandbox or the error that fork met (each fork is a start, which takes a slot of the team's
 * limit: at the limit, its result is the create's 429); a paused parent is a 409, a missing one a
 * 404. Rules and messages from infra: handlers/sandbox_fork.go (its timeout rules: timeout_helper.go).
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
  const count = body.count ?? 1;
  // The parent keeps its slot, so `limit` forks or more could never all start.
  const limit = stores.sandboxes.sandboxLimit;
  if (limit !== undefined && count >= limit) throw new ApiError(400, `Count must be lower than the maximum number of concurrent sandboxes (${limit})`);
  const parent = stores.sandboxes.all().find((s) => s.sandboxID === id);
  if (!parent) throw new ApiError(404, sandboxNotFound(id));
  if (parent.state === "paused") throw new ApiError(409, `Sandbox '${id}' is paused and cannot be forked; resume it first`);
  // One checkpoint for every fork, as the service boots them all from one snapshot.
  const checkpoint = await stores.snapshots.capture(parent);
  try {
    const results = [];
    for (let i = 0; i < count; i++) results.push(await forkResult(stores, parent, checkpoint, timeoutMs));
    return json(201, results);
  } finally {
    stores.snapshots.discard(checkpoint);
  }
}

/** One fork's entry: its sandbox, or the service's error body when it did not start (the limit's 429). */
async function forkResult(stores: Stores, parent: SandboxRecord, checkpoint: string, timeoutMs: number) {
  try {
    return { sandbox: sandboxView(await startFork(stores, parent, checkpoint, timeoutMs)) };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { error: { code: err.status, message: err.message } };
  }
}

/** The fork inherits what the service's snapshot keeps: settings, metadata, environment, mounts; not the expiry. */
async function startFork(stores: Stores, parent: SandboxRecord, checkpoint: string, timeoutMs: number): Promise<SandboxRecord> {
  const record = await stores.sandboxes.create({
    templateID: parent.templateID, alias: parent.alias, envdVersion: parent.envdVersion, secure: parent.secure,
    cpuCount: parent.cpuCount, memoryMB: parent.memoryMB, diskSizeMB: parent.diskSizeMB,
    metadata: { ...parent.metadata }, envVars: { ...parent.envVars }, network: parent.network,
    allowInternetAccess: parent.allowInternetAccess, autoPause: parent.autoPause, autoResume: parent.autoResume,
    // The snapshot's auto-resume config, its timeout with it (infra: handlers/sandbox_resume.go, buildResumeSandboxDataFromSnapshot).
    autoResumeTimeoutMs: parent.autoResumeTimeoutMs,
    volumeMounts: parent.volumeMounts.map((m) => ({ ...m })), timeoutMs, defaults: parent.defaults, imageDir: parent.imageDir,
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
