/**
 * The team routes (docs/service.md#teams): GET /teams lists the one team with the one API key
 * (infra: packages/api/internal/handlers/teams.go), and the team's metrics over a time range
 * (handlers/team_metrics.go, team_metrics_max.go). The emulator keeps no history of sandboxes that
 * are gone, so the series is made from the sandboxes it still holds.
 */
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

/** GET /teams (access token) and the team metrics (API key). */
export function teamRoutes(stores: Stores, apiKey: string): Route[] {
  return [
    {
      method: "GET", pattern: "/teams", auth: "accessToken",
      handler: () => json(200, [{ teamID: stores.teamID, name: TEAM_NAME, apiKey, isDefault: true }]),
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

function maximum(stores: Stores, ctx: RequestContext): Reply {
  // The validator checks the required `metric` before the handler's own checks.
  queryRequired(ctx.query, "metric");
  const metric = queryEnum(ctx.query, "metric", MAX_METRICS, "concurrent_sandboxes");
  const points = pointsOf(stores, ctx);
  const value = (p: Point) => (metric === "concurrent_sandboxes" ? p.concurrent : p.startRate);
  const top = points.reduce<Point | undefined>((best, p) => (best === undefined || value(p) > value(best) ? p : best), undefined);
  const t = top?.t ?? rangeOf(ctx.query, defaultRange()).startMs;
  return json(200, { timestamp: new Date(t).toISOString(), timestampUnix: Math.floor(t / 1000), value: top ? value(top) : 0 });
}

/** The checks both metrics routes make, in the handlers' order, then one point per step. */
function pointsOf(stores: Stores, ctx: RequestContext): Point[] {
  const teamID = ctx.params.teamID!;
  if (teamID !== stores.teamID) {
    throw new ApiError(403, `You (${stores.teamID}) are not authorized to access this team's (${teamID}) metrics`);
  }
  const range = rangeOf(ctx.query, defaultRange());
  const problem = rangeProblem(range);
  if (problem !== undefined) throw new ApiError(400, problem);
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
