/**
 * The build reads of the dashboard API (infra spec/openapi-dashboard.yml): the team's builds newest
 * first, the statuses of a list of them, and one. The built-in templates' builds are another team's,
 * so none of these shows them. The rules the spec leaves open are the emulator's
 * (docs/service.md#the-dashboard-api).
 */
import { ApiError, json, type Reply, type RequestContext } from "../http";
import { isUUID } from "../ids";
import type { Stores } from "../store";
import type { BuildRecord, TemplateRecord } from "../store/template-records";
import { queryEnumList, queryError, queryInt, queryRequired } from "../validate";
import { buildInfoView, buildStatusView, DASHBOARD_BUILD_STATUSES, dashboardStatus, listedBuildView } from "./dashboard-views";

const MAX_STATUS_IDS = 100;

interface TeamBuild {
  template: TemplateRecord;
  build: BuildRecord;
}

/** Every build of the team's own templates, newest first (ties by build ID, descending). */
function teamBuilds(stores: Stores): TeamBuild[] {
  const all = stores.templates.all().filter((t) => !t.builtIn).flatMap((template) => template.builds.map((build) => ({ template, build })));
  return all.sort((a, b) => newestFirst(a.build, b.build));
}

function newestFirst(a: { createdAt: Date; buildID: string }, b: { createdAt: Date; buildID: string }): number {
  return b.createdAt.getTime() - a.createdAt.getTime() || (a.buildID < b.buildID ? 1 : a.buildID > b.buildID ? -1 : 0);
}

/** GET /builds: `build_id_or_template` matches a build ID, a template ID or an alias; `statuses` filters. */
export function listBuilds(stores: Stores, ctx: RequestContext): Reply {
  const limit = queryInt(ctx.query, "limit", 50, 1, 100);
  const statuses = queryEnumList(ctx.query, "statuses", DASHBOARD_BUILD_STATUSES, [...DASHBOARD_BUILD_STATUSES]);
  const after = cursorOf(ctx.query.get("cursor"));
  const filter = ctx.query.get("build_id_or_template")?.trim() ?? "";
  const rest = teamBuilds(stores)
    .filter(({ template, build }) => filter === "" || build.buildID === filter.toLowerCase() || template.templateID === filter || template.aliases.includes(filter))
    .filter(({ build }) => statuses.includes(dashboardStatus(build)))
    .filter(({ build }) => after === undefined || newestFirst(after, build) < 0);
  const page = rest.slice(0, limit);
  const last = page.at(-1)?.build;
  const nextCursor = rest.length > limit && last ? `${last.createdAt.toISOString()}|${last.buildID}` : null;
  return json(200, { data: page.map(({ template, build }) => listedBuildView(template, build)), nextCursor });
}

/** A `<createdAt>|<buildID>` cursor of a previous page. */
function cursorOf(raw: string | null): { createdAt: Date; buildID: string } | undefined {
  if (raw === null || raw === "") return undefined;
  const bar = raw.indexOf("|");
  const createdAt = new Date(raw.slice(0, bar));
  const buildID = raw.slice(bar + 1).toLowerCase();
  if (bar < 0 || !Number.isFinite(createdAt.getTime()) || !isUUID(buildID)) throw queryError("cursor", "invalid cursor");
  return { createdAt, buildID };
}

/** GET /builds/statuses: the builds of `build_ids` (UUIDs, at most 100, no repeats) the team has; others are left out. */
export function buildStatuses(stores: Stores, ctx: RequestContext): Reply {
  const ids = queryRequired(ctx.query, "build_ids").split(",").map((id) => id.trim().toLowerCase());
  if (ids.some((id) => !isUUID(id))) throw queryError("build_ids", "each value must be a UUID");
  if (ids.length > MAX_STATUS_IDS) throw queryError("build_ids", `at most ${MAX_STATUS_IDS} items are allowed`);
  if (new Set(ids).size !== ids.length) throw queryError("build_ids", "items must be unique");
  const wanted = new Set(ids);
  const found = teamBuilds(stores).filter(({ build }) => wanted.has(build.buildID));
  return json(200, { buildStatuses: found.map(({ build }) => buildStatusView(build)) });
}

/** GET /builds/{build_id}: 404 for an unknown ID, another team's build, or no UUID at all (the spec lists no 400). */
export function buildInfo(stores: Stores, ctx: RequestContext): Reply {
  const id = ctx.params.build_id!.toLowerCase();
  const hit = isUUID(id) ? teamBuilds(stores).find(({ build }) => build.buildID === id) : undefined;
  if (!hit) throw new ApiError(404, `Build '${ctx.params.build_id}' not found`);
  return json(200, buildInfoView(hit.template, hit.build));
}
