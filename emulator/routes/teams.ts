/**
 * The team routes (docs/service.md#teams): GET /teams lists the one team with the one API key
 * (infra: packages/api/internal/handlers/teams.go), and the team's metrics over a time range
 * (handlers/team_metrics.go, team_metrics_max.go). The emulator keeps no history of sandboxes that
 * are gone, so the series is made from the sandboxes it still holds.
 */
import type { Credentials } from "../auth";
import { ApiError, json, type Reply, type RequestContext } from "../http";
import { pointsIn, rangeOf, rangeProblem, stepOf, type MetricsRange } from "../metrics-range";
import type { Route } from "../router";
import type { Stores } from "../store";
import type { SandboxRecord } from "../store/sandbox-records";
import { queryEnum, queryRequired } from "../validate";

/** The team's name in GET /teams. */
export const TEAM_NAME = "emulator";
/** A query names no range: the last 7 days (handlers/team_metrics.go, defaultTimeRange). */
const DEFAULT_RANGE_MS = 7 * 24 * 3600 * 1000;
const MAX_METRICS = ["concurrent_sandboxes", "sandbox_start_rate"] as const;
/** How often the service exports the team's metrics (infra: packages/api/internal/metrics/team.go, ExportPeriod). */
const EXPORT_PERIOD_MS = 5000;

/** GET /teams (access token) and the team metrics (API key). */
export function teamRoutes(stores: Stores, creds: Pick<Credentials, "apiKey">): Route[] {
  return [
    {
      method: "GET", pattern: "/teams", auth: "accessToken",
      handler: () => json(200, [{ teamID: stores.teamID, name: TEAM_NAME, apiKey: creds.apiKey, isDefault: true }]),
    },
    { method: "GET", pattern: "/teams/:teamID/metrics", auth: "apiKey", handler: (ctx) => series(stores, ctx) },
    { method: "GET", pattern: "/teams/:teamID/metrics/max", auth: "apiKey", handler: (ctx) => maximum(stores, ctx) },
  ];
}

interface Point {
  t: number;
  concurrent: number;
  startRate: number;
}

function series(stores: Stores, ctx: RequestContext): Reply {
  return json(200, pointsOf(stores, ctx).map((p) => ({
    timestamp: new Date(p.t).toISOString(), timestampUnix: Math.floor(p.t / 1000),
    concurrentSandboxes: p.concurrent, sandboxStartRate: p.startRate,
  })));
}

/**
 * The highest reading of the metric in the range: the service takes the max over every reading of
 * its gauge (exported every few seconds), not over the series' steps (infra:
 * packages/clickhouse/pkg/team.go, QueryMaxConcurrentTeamMetrics, QueryMaxStartRateTeamMetrics).
 */
function maximum(stores: Stores, ctx: RequestContext): Reply {
  // The validator checks the required `metric` before the handler's own checks.
  queryRequired(ctx.query, "metric");
  const metric = queryEnum(ctx.query, "metric", MAX_METRICS, "concurrent_sandboxes");
  const range = checkedRange(stores, ctx);
  const sandboxes = stores.sandboxes.all();
  const top = metric === "concurrent_sandboxes" ? peakConcurrent(sandboxes, range, Date.now()) : peakStartRate(sandboxes, range);
  const t = top?.t ?? range.startMs;
  return json(200, { timestamp: new Date(t).toISOString(), timestampUnix: Math.floor(t / 1000), value: top?.value ?? 0 });
}

interface Peak {
  t: number;
  value: number;
}

/** Most sandboxes running at once within the range, and when that count was first reached. */
function peakConcurrent(sandboxes: SandboxRecord[], range: MetricsRange, now: number): Peak | undefined {
  const events = sandboxes
    .map((s) => [Math.max(s.startedAt.getTime(), range.startMs), Math.min(lastRunning(s, now), range.endMs)] as const)
    .filter(([from, to]) => from <= to)
    .flatMap(([from, to]) => [[from, 1], [to, -1]] as const)
    // A start at the moment another sandbox ends counts both.
    .sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let count = 0;
  let best: Peak | undefined;
  for (const [t, change] of events) {
    count += change;
    if (best === undefined || count > best.value) best = { t, value: count };
  }
  return best;
}

/** Starts per second in the busiest bucket of the service's export period (5 s, aligned to the epoch). */
function peakStartRate(sandboxes: SandboxRecord[], range: MetricsRange): Peak | undefined {
  const buckets = new Map<number, number>();
  for (const s of sandboxes) {
    const t = s.startedAt.getTime();
    if (t < range.startMs || t > range.endMs) continue;
    const bucket = t - (t % EXPORT_PERIOD_MS);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + 1);
  }
  let best: Peak | undefined;
  for (const [t, starts] of buckets) {
    const value = starts / (EXPORT_PERIOD_MS / 1000);
    if (best === undefined || value > best.value) best = { t, value };
  }
  return best;
}

/** The checks both metrics routes make, in the handlers' order: the team, then the range. */
function checkedRange(stores: Stores, ctx: RequestContext): MetricsRange {
  const teamID = ctx.params.teamID!;
  if (teamID !== stores.teamID) {
    throw new ApiError(403, `You (${stores.teamID}) are not authorized to access this team's (${teamID}) metrics`);
  }
  const range = rangeOf(ctx.query, defaultRange());
  const problem = rangeProblem(range);
  if (problem !== undefined) throw new ApiError(400, problem);
  return range;
}

/** The series' readings, one per step of the range, made from the sandboxes the emulator still holds. */
function pointsOf(stores: Stores, ctx: RequestContext): Point[] {
  const range = checkedRange(stores, ctx);
  const now = Date.now();
  const sandboxes = stores.sandboxes.all();
  if (sandboxes.length === 0) return [];
  const first = Math.min(...sandboxes.map((s) => s.startedAt.getTime()));
  const step = stepOf(range);
  return pointsIn(range, first, now).map((t) => ({
    t,
    concurrent: sandboxes.filter((s) => s.startedAt.getTime() <= t && t <= lastRunning(s, now)).length,
    startRate: sandboxes.filter((s) => s.startedAt.getTime() >= t && s.startedAt.getTime() < t + step).length / (step / 1000),
  }));
}

/** Until when a sandbox ran: now while it runs, the moment it paused once paused. */
function lastRunning(s: SandboxRecord, now: number): number {
  return s.state === "running" ? now : s.endAt.getTime();
}

function defaultRange(): MetricsRange {
  const now = Date.now();
  return { startMs: now - DEFAULT_RANGE_MS, endMs: now };
}
