/**
 * Sandbox routes other than the lists: create (v1 and the official SDK's v2), get, kill, timeout,
 * pause, connect (v1 and v2), metrics, logs (v1 and v2). Status codes from docs/service.md#sandboxes and docs/service.md#sandbox-lifecycle: kill/timeout/pause 204, connect 200 when it
 * was running and 201 when it resumed, pause of a paused sandbox 409.
 */
import { z } from "zod";
import { ApiError, json, noContent, type RequestContext } from "../http";
import type { Route } from "../router";
import type { Stores } from "../store";
import { MAX_TIMEOUT_MS, type SandboxRecord } from "../store/sandbox-records";
import { parseBody, queryRequired } from "../validate";
import { pointsIn, rangeOf, rangeProblem } from "../metrics-range";
import { logsV1, logsV2 } from "./sandbox-logs";
import { createSandbox } from "./sandbox-create";
import { operationDelay } from "../op-latency";
import { detailView, sandboxView } from "./sandbox-views";

const TimeoutSchema = z.object({ timeout: z.int32() });
const ConnectSchema = z.object({ timeout: z.int32().min(0) });
/** SandboxPauseRequest; `requireHealthyGuest` is the newest SDKs' (docs/service.md#sandbox-fields-of-the-newest-sdks). */
const PauseSchema = z.object({ memory: z.boolean().optional(), requireHealthyGuest: z.boolean().optional() });
const ConnectV2Schema = z.object({ timeout: z.int32().min(0).default(300), memory: z.boolean().optional() });
/** Time to live POST /v2/sandboxes/{id}/connect gives when the body names none, in seconds. */
const V2_CONNECT_TIMEOUT_S = 300;

/** Most sandboxes one metrics request may name. */
const MAX_METRICS_IDS = 100;
const MiB = 1024 * 1024;

/**
 * Connect: a paused sandbox resumes, which takes a slot of the team's limit as a create does (the
 * store reserves it: docs/service.md#limits); a running one just answers.
 */
async function connect(stores: Stores, record: SandboxRecord, timeoutMs: number, opts: { keepMemory?: boolean | undefined } = {}) {
  await operationDelay(stores.latency, "connectMs");
  const { record: now, resumed } = await stores.sandboxes.connect(record.sandboxID, timeoutMs, opts);
  return json(resumed ? 201 : 200, sandboxView(now));
}

/** The /sandboxes routes other than the lists. */
export function sandboxRoutes(stores: Stores): Route[] {
  const { sandboxes } = stores;
  const find = (ctx: RequestContext) => sandboxes.get(sandboxID(ctx.params.id ?? ""));
  return [
    { method: "POST", pattern: "/sandboxes", auth: "apiKey", handler: (ctx) => createSandbox(stores, ctx) },
    { method: "GET", pattern: "/sandboxes/metrics", auth: "apiKey", handler: (ctx) => metrics(stores, ctx.query) },
    { method: "GET", pattern: "/sandboxes/:id", auth: "apiKey", handler: (ctx) => json(200, detailView(find(ctx))) },
    {
      method: "DELETE", pattern: "/sandboxes/:id", auth: "apiKey",
      handler: async (ctx) => {
        const { sandboxID } = find(ctx);
        await operationDelay(stores.latency, "killMs");
        sandboxes.kill(sandboxID);
        return noContent();
      },
    },
    {
      method: "POST", pattern: "/sandboxes/:id/timeout", auth: "apiKey",
      handler: async (ctx) => {
        const { timeout } = parseBody(TimeoutSchema, await ctx.json());
        sandboxes.setTimeout(find(ctx).sandboxID, checkMax(timeout) * 1000);
        return noContent();
      },
    },
    {
      method: "POST", pattern: "/sandboxes/:id/pause", auth: "apiKey",
      handler: async (ctx) => {
        const body = await ctx.json();
        const { memory, requireHealthyGuest } = body === undefined ? {} : parseBody(PauseSchema, body);
        await sandboxes.pause(find(ctx).sandboxID, memory !== false, { requireHealthyGuest });
        return noContent();
      },
    },
    {
      method: "POST", pattern: "/sandboxes/:id/connect", auth: "apiKey",
      handler: async (ctx) => {
        // The timeout is checked before the lookup, so an over-long one is a 400 even for an
        // unknown sandbox (infra: packages/api/internal/handlers/sandbox_connect.go).
        const timeoutS = checkMax(parseBody(ConnectSchema, await ctx.json()).timeout);
        return connect(stores, find(ctx), timeoutS * 1000);
      },
    },
    {
      method: "POST", pattern: "/v2/sandboxes/:id/connect", auth: "apiKey",
      handler: async (ctx) => {
        const body = await ctx.json();
        const { timeout, memory } = body === undefined ? { timeout: V2_CONNECT_TIMEOUT_S, memory: undefined } : parseBody(ConnectV2Schema, body);
        const timeoutS = checkMax(timeout);
        return connect(stores, find(ctx), timeoutS * 1000, { keepMemory: memory });
      },
    },
    { method: "POST", pattern: "/v2/sandboxes", auth: "apiKey", handler: (ctx) => createSandbox(stores, ctx, "v2") },
    {
      method: "GET", pattern: "/sandboxes/:id/metrics", auth: "apiKey",
      handler: (ctx) => readings(find(ctx), ctx.query),
    },
    { method: "GET", pattern: "/sandboxes/:id/logs", auth: "apiKey", handler: (ctx) => logsV1(find(ctx), ctx.query) },
    { method: "GET", pattern: "/v2/sandboxes/:id/logs", auth: "apiKey", handler: (ctx) => logsV2(find(ctx), ctx.query) },
  ];
}

/** Accepts `<id>` and the legacy `<id>-<clientID>` form; anything else is 400 "Invalid sandbox ID". */
export function sandboxID(raw: string): string {
  const id = raw.split("-")[0] ?? "";
  if (!/^[a-z0-9]+$/.test(id)) throw new ApiError(400, "Invalid sandbox ID");
  return id;
}

function checkMax(timeoutS: number): number {
  if (timeoutS * 1000 > MAX_TIMEOUT_MS) throw new ApiError(400, `Timeout cannot be greater than ${MAX_TIMEOUT_MS / 3_600_000} hours`);
  return timeoutS;
}

function metrics(stores: Stores, query: URLSearchParams) {
  const ids = new Set(queryRequired(query, "sandbox_ids").split(",").map((s) => s.trim()).filter((s) => s !== ""));
  if (ids.size > MAX_METRICS_IDS) throw new ApiError(400, `Too many sandboxes requested, maximum is ${MAX_METRICS_IDS}`);
  const out: Record<string, unknown> = {};
  for (const id of ids) {
    const record = stores.sandboxes.all().find((s) => s.sandboxID === id && s.state === "running");
    if (record) out[id] = metric(record);
  }
  return json(200, { sandboxes: out });
}

/**
 * The readings of one sandbox in `start`..`end` (Unix seconds; by default its whole life), one per
 * step; the emulator takes readings only while the sandbox runs (infra: packages/api/internal/
 * clusters/resources_local.go, GetSandboxMetrics).
 */
function readings(record: SandboxRecord, query: URLSearchParams) {
  const now = Date.now();
  const range = rangeOf(query, { startMs: record.startedAt.getTime(), endMs: now });
  if (rangeProblem(range) !== undefined) throw new ApiError(400, "Invalid time range for metrics");
  if (record.state !== "running") return json(200, []);
  return json(200, pointsIn(range, record.startedAt.getTime(), now).map((t) => metric(record, new Date(t))));
}

/** A plausible, steady reading: a quarter of memory used, a tenth of the disk. */
function metric(s: SandboxRecord, now = new Date()) {
  return {
    timestamp: now.toISOString(),
    timestampUnix: Math.floor(now.getTime() / 1000),
    cpuCount: s.cpuCount,
    cpuUsedPct: 1.5,
    memUsed: Math.round(s.memoryMB * MiB * 0.25),
    memTotal: s.memoryMB * MiB,
    memCache: Math.round(s.memoryMB * MiB * 0.05),
    diskUsed: Math.round(s.diskSizeMB * MiB * 0.1),
    diskTotal: s.diskSizeMB * MiB,
  };
}
