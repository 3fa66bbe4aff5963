/**
 * The tag history routes of the newest SDKs (e2b 2.63: api/client/api/tags/*.py): how many tags a
 * template has, whether one exists, the tags with their latest assignments, and one tag's
 * assignments. They read the assignment log of template-tags.ts; only assignments whose build is
 * ready count. The rules the packages leave open are the emulator's
 * (docs/service.md#template-routes-of-the-newest-sdks).
 */
import { ApiError, json, type Reply, type RequestContext } from "../http";
import { isUUID } from "../ids";
import type { Route } from "../router";
import type { Stores } from "../store";
import type { TemplateRecord } from "../store/template-records";
import { newestFirst, readyAssignments, type ReadyAssignment } from "../store/template-tags";
import { queryEnum, queryError, queryRequired } from "../validate";

const TAG_RE = /^[a-z0-9-_.]+$/;
/** Search and cursor tags: the tag alphabet (an empty cursor tag stands for the first page). */
const SEARCH_RE = /^[a-z0-9._-]*$/;
const MAX_SEARCH = 64;
const SORTS = ["latest_asc", "latest_desc", "name_asc", "name_desc"] as const;
type Sort = (typeof SORTS)[number];

/** GET /templates/{templateID}/tags/count, /exists, /groups and /{tag}/assignments. */
export function templateTagRoutes(stores: Stores): Route[] {
  return [
    {
      method: "GET", pattern: "/templates/:templateID/tags/count", auth: "apiKey",
      handler: (ctx) => json(200, { total: new Set(readyAssignments(teamTemplate(stores, ctx)).map((a) => a.tag)).size }),
    },
    {
      method: "GET", pattern: "/templates/:templateID/tags/exists", auth: "apiKey",
      handler: (ctx) => {
        const template = teamTemplate(stores, ctx);
        const tag = normalizeTag(queryRequired(ctx.query, "tag"));
        return json(200, { exists: readyAssignments(template, tag).length > 0, normalizedTag: tag });
      },
    },
    { method: "GET", pattern: "/templates/:templateID/tags/groups", auth: "apiKey", handler: (ctx) => groups(stores, ctx) },
    { method: "GET", pattern: "/templates/:templateID/tags/:tag/assignments", auth: "apiKey", handler: (ctx) => assignments(stores, ctx) },
  ];
}

/** Trims and lower-cases a tag, then checks it as every tag route does. */
export function normalizeTag(raw: string): string {
  const tag = raw.trim().toLowerCase();
  checkTag(tag);
  return tag;
}

/** A tag is lowercase letters, digits, '-', '_' and '.', and not a UUID (which names a build). */
export function checkTag(tag: string): void {
  if (!TAG_RE.test(tag) || isUUID(tag)) throw new ApiError(400, `Invalid tag '${tag}': use lowercase letters, numbers, '-', '_' and '.', and not a UUID`);
}

/** The template of the path, by ID or alias: 404 when unknown or another team's (the built-in ones). */
function teamTemplate(stores: Stores, ctx: RequestContext): TemplateRecord {
  const ref = ctx.params.templateID!;
  const template = stores.templates.resolve(ref)?.template;
  if (!template || template.builtIn) throw new ApiError(404, `Template '${ref}' not found`);
  return template;
}

/** TemplateTagAssignment. */
function assignmentView(a: ReadyAssignment): Record<string, unknown> {
  return {
    assignmentId: a.assignmentID,
    buildId: a.buildID,
    assignedAt: a.assignedAt,
    buildCreatedAt: a.build.createdAt.toISOString(),
    buildFinishedAt: a.build.finishedAt?.toISOString() ?? null,
  };
}

/** GET /templates/{templateID}/tags/{tag}/assignments: newest first, `limit` (default 50, 1–100) a page. */
function assignments(stores: Stores, ctx: RequestContext): Reply {
  const template = teamTemplate(stores, ctx);
  const tag = normalizeTag(ctx.params.tag!);
  const limit = clampedInt(ctx.query, "limit", 50, 1, 100);
  const all = readyAssignments(template, tag);
  const cursor = ctx.query.get("cursor");
  let rest = all;
  if (cursor !== null && cursor !== "") {
    const after = assignmentCursor(cursor, all);
    rest = all.filter((a) => newestFirst(after, a) < 0);
  }
  const page = rest.slice(0, limit);
  const last = page.at(-1);
  const nextCursor = rest.length > limit && last ? `${last.assignedAt}|${last.assignmentID}` : null;
  return json(200, { data: page.map(assignmentView), nextCursor });
}

/** The position a `<assignedAt>|<assignmentID>` cursor names; an assignment since removed keeps its time. */
function assignmentCursor(cursor: string, all: ReadyAssignment[]): { t: number; seq: number } {
  const bar = cursor.indexOf("|");
  const t = Date.parse(cursor.slice(0, bar));
  const id = cursor.slice(bar + 1).toLowerCase();
  if (bar < 0 || !Number.isFinite(t) || !isUUID(id)) throw new ApiError(400, "Invalid cursor");
  const seen = all.find((a) => a.assignmentID === id);
  return seen ? { t: seen.t, seq: seen.seq } : { t, seq: Number.POSITIVE_INFINITY };
}

interface Group {
  tag: string;
  /** Time of the tag's latest ready assignment, in milliseconds. */
  t: number;
  assignments: ReadyAssignment[];
}

/**
 * GET /templates/{templateID}/tags/groups: the tags with a ready assignment, `tagsLimit` (default 25,
 * 1–100) a page in `sort` order, each with its `assignmentLimit` (default 6, 1–25) latest assignments.
 */
function groups(stores: Stores, ctx: RequestContext): Reply {
  const template = teamTemplate(stores, ctx);
  const sort = queryEnum(ctx.query, "sort", SORTS, "latest_desc");
  const search = searchOf(ctx.query.get("search"));
  const cursor = groupsCursor(ctx.query.get("tagsCursor"), sort);
  const assignmentLimit = clampedInt(ctx.query, "assignmentLimit", 6, 1, 25);
  const tagsLimit = clampedInt(ctx.query, "tagsLimit", 25, 1, 100);
  const byTag = new Map<string, ReadyAssignment[]>();
  for (const a of readyAssignments(template)) {
    if (search !== "" && !a.tag.includes(search)) continue;
    const list = byTag.get(a.tag) ?? [];
    list.push(a);
    byTag.set(a.tag, list);
  }
  const order = groupOrder(sort);
  const all: Group[] = [...byTag].map(([tag, list]) => ({ tag, t: list[0]!.t, assignments: list })).sort(order);
  const rest = cursor ? all.filter((g) => order(cursor, g) < 0) : all;
  const page = rest.slice(0, tagsLimit);
  const last = page.at(-1);
  const nextCursor = rest.length > tagsLimit && last ? `${sort}|${new Date(last.t).toISOString()}|${last.tag}` : null;
  return json(200, {
    tags: page.map((g) => ({
      tag: g.tag,
      assignments: g.assignments.slice(0, assignmentLimit).map(assignmentView),
      hasMore: g.assignments.length > assignmentLimit,
    })),
    nextCursor,
  });
}

/** The order of `sort`: by latest assignment (ties by name), or by name. */
function groupOrder(sort: Sort): (a: { t: number; tag: string }, b: { t: number; tag: string }) => number {
  const byName = (a: { tag: string }, b: { tag: string }) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0);
  switch (sort) {
    case "latest_desc": return (a, b) => b.t - a.t || byName(a, b);
    case "latest_asc": return (a, b) => a.t - b.t || byName(a, b);
    case "name_asc": return byName;
    case "name_desc": return (a, b) => byName(b, a);
  }
}

/** A `<sort>|<latest assignment time>|<tag>` cursor, which must be of the same sort. */
function groupsCursor(raw: string | null, sort: Sort): { t: number; tag: string } | undefined {
  if (raw === null || raw === "") return undefined;
  const parts = raw.split("|");
  if (parts.length !== 3) throw new ApiError(400, "Invalid cursor");
  if (parts[0] !== sort) throw new ApiError(400, "Cursor was issued for a different sort; clear the cursor and restart");
  const t = Date.parse(parts[1]!);
  if (!Number.isFinite(t) || !SEARCH_RE.test(parts[2]!)) throw new ApiError(400, "Invalid cursor");
  return { t, tag: parts[2]! };
}

/** The search text, trimmed and lower-cased: a part of a tag name, at most 64 characters. */
function searchOf(raw: string | null): string {
  const search = (raw ?? "").trim().toLowerCase();
  if (search.length > MAX_SEARCH || !SEARCH_RE.test(search)) {
    throw new ApiError(400, `Invalid search parameter: at most ${MAX_SEARCH} of lowercase letters, numbers, '-', '_' and '.'`);
  }
  return search;
}

/** An optional integer query parameter, brought into [min, max]; `fallback` when absent. */
function clampedInt(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = query.get(name);
  if (raw === null || raw === "") return fallback;
  if (!/^-?\d+$/.test(raw)) throw queryError(name, "value must be an integer");
  return Math.min(max, Math.max(min, Number(raw)));
}
