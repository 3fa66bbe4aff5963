/**
 * The template reads of the dashboard API (infra spec/openapi-dashboard.yml): the team's templates
 * with the default ones inline, the default templates, and one of the team's templates. The rules the
 * spec leaves open are the emulator's (docs/service.md#the-dashboard-api).
 */
import { ApiError, json, type Reply, type RequestContext } from "../http";
import type { Stores } from "../store";
import type { TemplateRecord } from "../store/template-records";
import { isDefaultTemplate, templateNames } from "../store/templates";
import { queryBool, queryEnum, queryError, queryInt } from "../validate";
import { defaultTemplateView, teamTemplateView, templateDetailView } from "./dashboard-views";

const SORTS = ["created_at_asc", "created_at_desc", "updated_at_asc", "updated_at_desc"] as const;
type Sort = (typeof SORTS)[number];

/** The templates the team sees: its own and the default ones (the emulator's built-in public ones). */
function visible(stores: Stores): TemplateRecord[] {
  return stores.templates.all().filter((t) => !t.builtIn || isDefaultTemplate(t));
}

/** The time a sort orders by, in milliseconds. */
function timeOf(t: TemplateRecord, sort: Sort): number {
  return (sort.startsWith("created_at") ? t.createdAt : t.updatedAt).getTime();
}

/** The order of `sort`; ties by template ID in the same direction. */
function order(sort: Sort): (a: { t: number; id: string }, b: { t: number; id: string }) => number {
  const dir = sort.endsWith("_asc") ? 1 : -1;
  return (a, b) => dir * (a.t - b.t || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** GET /templates: `public` and `search` filter, `sort` orders, `limit` (1–100, default 50) a page. */
export function listTemplates(stores: Stores, ctx: RequestContext): Reply {
  const sort = queryEnum(ctx.query, "sort", SORTS, "created_at_desc");
  const limit = queryInt(ctx.query, "limit", 50, 1, 100);
  const pub = ctx.query.has("public") ? queryBool(ctx.query, "public", false) : undefined;
  const search = (ctx.query.get("search") ?? "").trim().toLowerCase();
  const after = cursorOf(ctx.query.get("cursor"), sort);
  const cmp = order(sort);
  const keyed = visible(stores)
    .filter((t) => pub === undefined || t.public === pub)
    .filter((t) => search === "" || [t.templateID, ...t.aliases, ...templateNames(t)].some((s) => s.toLowerCase().includes(search)))
    .map((template) => ({ template, t: timeOf(template, sort), id: template.templateID }))
    .sort(cmp);
  const rest = after ? keyed.filter((k) => cmp(after, k) < 0) : keyed;
  const page = rest.slice(0, limit);
  const last = page.at(-1);
  const nextCursor = rest.length > limit && last ? `${sort}|${new Date(last.t).toISOString()}|${last.id}` : null;
  return json(200, { data: page.map((k) => teamTemplateView(k.template, stores.userID)), nextCursor });
}

/** A `<sort>|<time>|<templateID>` cursor, which must be of the request's sort. */
function cursorOf(raw: string | null, sort: Sort): { t: number; id: string } | undefined {
  if (raw === null || raw === "") return undefined;
  const parts = raw.split("|");
  const t = Date.parse(parts[1] ?? "");
  if (parts.length !== 3 || !Number.isFinite(t) || parts[2] === "") throw queryError("cursor", "invalid cursor");
  if (parts[0] !== sort) throw queryError("cursor", "the cursor was issued for a different sort; clear it and restart");
  return { t, id: parts[2]! };
}

/** GET /templates/defaults: the default templates that have a ready default build, by template ID. */
export function defaultTemplates(stores: Stores): Reply {
  const defaults = stores.templates.all().filter(isDefaultTemplate).sort((a, b) => (a.templateID < b.templateID ? -1 : 1));
  return json(200, { templates: defaults.map(defaultTemplateView).filter((v) => v !== undefined) });
}

/** GET /templates/{templateID}: one of the team's templates, by ID (the spec's "indexed by template ID"). */
export function templateDetail(stores: Stores, ctx: RequestContext): Reply {
  const id = ctx.params.templateID!;
  const template = stores.templates.byID(id);
  if (!template || template.builtIn) throw new ApiError(404, `Template '${id}' not found`);
  return json(200, templateDetailView(template));
}
