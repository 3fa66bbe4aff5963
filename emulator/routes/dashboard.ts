/**
 * E2B's dashboard API (infra spec/openapi-dashboard.yml), served under DASHBOARD_PREFIX on the
 * emulator's origin: its paths (`/templates`, `/templates/{templateID}`, `/health`) are the
 * platform's with other answers, so they cannot share the root. The public e2b-dev/dashboard reads
 * it with a team API key (`X-API-Key`) at NEXT_PUBLIC_DASHBOARD_API_URL (docs/emulator.md). The reads
 * it calls are served; the rest answer 501 (DASHBOARD_UNSERVED_OPERATIONS).
 */
import { sameSecret, type Credentials } from "../auth";
import { ApiError, json, type RequestContext } from "../http";
import type { Handler, Route } from "../router";
import type { Stores } from "../store";
import { buildInfo, buildStatuses, listBuilds } from "./dashboard-builds";
import { defaultTemplates, listTemplates, templateDetail } from "./dashboard-templates";
import { templateTagRoutes } from "./template-tag-history";

/** Where the dashboard API is mounted: NEXT_PUBLIC_DASHBOARD_API_URL is the emulator's URL plus this. */
export const DASHBOARD_PREFIX = "/dashboard-api";

/** `METHOD /spec/path/{param}` of each dashboard operation the emulator does not serve (users, members, admin, management). */
export const DASHBOARD_UNSERVED_OPERATIONS: readonly string[] = [
  "GET /sandboxes/{sandboxID}/record",
  "GET /teams",
  "POST /teams",
  "POST /admin/users/bootstrap",
  "POST /admin/teams/bootstrap",
  "POST /admin/clusters",
  "DELETE /admin/clusters/{clusterID}",
  "GET /admin/teams/{teamID}/cluster",
  "PUT /admin/teams/{teamID}/cluster",
  "DELETE /admin/teams/{teamID}/cluster/{clusterID}",
  "POST /admin/user-profiles/resolve",
  "POST /admin/user-profiles/by-email",
  "GET /admin/user-profiles/{userId}",
  "DELETE /admin/users/{userId}",
  "GET /teams/resolve",
  "PATCH /teams/{teamID}",
  "GET /teams/{teamID}/status",
  "GET /teams/{teamID}/members",
  "POST /teams/{teamID}/members",
  "DELETE /teams/{teamID}/members/{userId}",
  "PUT /v1/management/projects/{projectID}",
  "DELETE /v1/management/projects/{projectID}",
  "PUT /v1/management/projects/{projectID}/members/{userID}",
  "DELETE /v1/management/users/{userID}/access-tokens",
  "PUT /v1/management/projects/{projectID}/limits",
];

/** The dashboard API's routes, each path under DASHBOARD_PREFIX. */
export function dashboardRoutes(stores: Stores, creds: Credentials): Route[] {
  const team = (handler: Handler): Handler => (ctx) => (checkTeamHeader(stores, creds, ctx), handler(ctx));
  const served: Route[] = [
    { method: "GET", pattern: "/health", auth: "none", handler: () => json(200, { message: "Health check successful" }) },
    { method: "GET", pattern: "/builds", auth: "either", handler: team((ctx) => listBuilds(stores, ctx)) },
    { method: "GET", pattern: "/builds/statuses", auth: "either", handler: team((ctx) => buildStatuses(stores, ctx)) },
    { method: "GET", pattern: "/builds/:build_id", auth: "either", handler: team((ctx) => buildInfo(stores, ctx)) },
    { method: "GET", pattern: "/templates", auth: "either", handler: team((ctx) => listTemplates(stores, ctx)) },
    // ApiKeyAuth or a bearer token alone: the default templates are no team's.
    { method: "GET", pattern: "/templates/defaults", auth: "either", handler: () => defaultTemplates(stores) },
    { method: "GET", pattern: "/templates/:templateID", auth: "either", handler: team((ctx) => templateDetail(stores, ctx)) },
    // The tag routes answer as the platform's of the same paths (the newest Python client's).
    ...templateTagRoutes(stores).map((r): Route => ({ ...r, auth: "either", handler: team(r.handler) })),
  ];
  return [...served, ...unserved()].map((r) => ({ ...r, pattern: DASHBOARD_PREFIX + r.pattern }));
}

/**
 * AuthProviderBearerAuth goes with AuthProviderTeamAuth: a request that came with the access token
 * instead of the API key names the team in `X-Team-ID`, and it must be the emulator's one team.
 */
function checkTeamHeader(stores: Stores, creds: Credentials, ctx: RequestContext): void {
  const key = ctx.headers["x-api-key"];
  if (sameSecret(Array.isArray(key) ? key[0] : key, creds.apiKey)) return;
  const teamID = ctx.headers["x-team-id"];
  if (teamID === undefined) throw new ApiError(401, "X-Team-ID header is required with a bearer token");
  if (teamID !== stores.teamID) throw new ApiError(403, `You are not a member of team '${String(teamID)}'`);
}

function unserved(): Route[] {
  return DASHBOARD_UNSERVED_OPERATIONS.map((operation) => {
    const [method, path] = operation.split(" ") as [Route["method"], string];
    const message = `dashboard API ${operation} is not implemented by the emulator`;
    return { method, pattern: path.replace(/\{([^}]+)\}/g, ":$1"), auth: "none", handler: () => { throw new ApiError(501, message); } };
  });
}
