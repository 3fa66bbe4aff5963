/**
 * Template routes. The v1 builds (POST /templates, POST /templates/{id}) take only a Bearer access
 * token and answer 202; GET /templates/{id} looks up IDs only; PATCH /v2, DELETE and the alias
 * lookup accept an ID or an alias. An unknown build is a 400, not a 404 (docs/service.md#build-status).
 */
import { z } from "zod";
import { ApiError, json, noContent, type RequestContext } from "../http";
import { isUUID } from "../ids";
import { paginate } from "../paging";
import type { Route } from "../router";
import type { Stores } from "../store";
import type { LogLevel, TemplateRecord } from "../store/template-records";
import { isDefaultTemplate, parseAlias, templateNames } from "../store/templates";
import { parseBody, queryEnum, queryInt } from "../validate";
import { buildInfoView, defaultTemplateView, legacyBuildView, templateView, withBuildsView } from "./template-views";

const BuildRequestSchema = z.object({
  dockerfile: z.string(),
  alias: z.string().optional(),
  teamID: z.string().optional(),
  startCmd: z.string().optional(),
  readyCmd: z.string().optional(),
  // The spec's CPUCount and MemoryMB minimums, which its validator checks before the handler's limits.
  cpuCount: z.int32().min(1, "number must be at least 1").optional(),
  memoryMB: z.int32().min(128, "number must be at least 128").optional(),
});
const UpdateSchema = z.object({ public: z.boolean().optional() });
const LEVELS: LogLevel[] = ["debug", "info", "warn", "error"];

/** The /templates and /v2/templates routes. */
export function templateRoutes(stores: Stores): Route[] {
  const { templates } = stores;
  return [
    { method: "POST", pattern: "/templates", auth: "accessToken", handler: (ctx) => build(stores, ctx, undefined) },
    { method: "POST", pattern: "/templates/:id", auth: "accessToken", handler: (ctx) => build(stores, ctx, ownByID(stores, ctx.params.id!)) },
    {
      method: "GET", pattern: "/templates", auth: "apiKey",
      handler: (ctx) => (checkTeam(stores, ctx.query), json(200, listed(stores).map((t) => templateView(t, stores.userID)))),
    },
    { method: "GET", pattern: "/v2/templates", auth: "apiKey", handler: (ctx) => listV2(stores, ctx.query) },
    {
      // The platform's default templates, by template ID (docs/service.md#template-routes-of-the-newest-sdks).
      method: "GET", pattern: "/default-templates", auth: "apiKey",
      handler: () => json(200, templates.all().filter(isDefaultTemplate).sort((a, b) => (a.templateID < b.templateID ? -1 : 1)).map((t) => defaultTemplateView(t, stores.userID))),
    },
    { method: "GET", pattern: "/templates/aliases/:alias", auth: "apiKey", handler: (ctx) => aliasLookup(stores, ctx.params.alias!) },
    { method: "GET", pattern: "/templates/:id", auth: "apiKey", handler: (ctx) => withBuilds(stores, byID(stores, ctx.params.id!), ctx.query) },
    { method: "GET", pattern: "/templates/:id/builds/:buildID/status", auth: "apiKey", handler: (ctx) => buildStatus(stores, ctx) },
    {
      method: "PATCH", pattern: "/v2/templates/:id", auth: "either",
      handler: async (ctx) => {
        const template = own(resolveRef(stores, ctx.params.id!), ctx.params.id!);
        const body = parseBody(UpdateSchema, await ctx.json());
        if (body.public !== undefined) Object.assign(template, { public: body.public, updatedAt: new Date() });
        return json(200, { names: templateNames(template) });
      },
    },
    {
      method: "DELETE", pattern: "/templates/:id", auth: "apiKey",
      handler: (ctx) => {
        const ref = ctx.params.id!;
        // A snapshot is a template of its own kind, deleted the same way (docs/service.md#sandbox-snapshots).
        const snapshot = templates.resolve(ref) ? undefined : stores.snapshots.resolve(ref)?.snapshot;
        if (snapshot) {
          checkUnused(stores, snapshot, ref);
          stores.snapshots.delete(snapshot);
          return noContent();
        }
        const template = own(resolveRef(stores, ref), ref);
        checkUnused(stores, template, ref);
        templates.delete(template);
        return noContent();
      },
    },
  ];
}

async function build(stores: Stores, ctx: RequestContext, existing: TemplateRecord | undefined) {
  const body = parseBody(BuildRequestSchema, await ctx.json());
  const { template, build } = stores.templates.register(existing, body);
  return json(202, legacyBuildView(template, build));
}

/** The team's own templates (the built-in one belongs to another team). */
function listed(stores: Stores): TemplateRecord[] {
  return stores.templates.all().filter((t) => !t.builtIn);
}

/** A `teamID` query must name the key's team (infra: handlers/templates_list.go, templates_list_v2.go). */
function checkTeam(stores: Stores, query: URLSearchParams): void {
  const teamID = query.get("teamID");
  if (teamID !== null && teamID !== stores.teamID) throw new ApiError(400, "Team ID param mismatch with the API key");
}

/** GET /v2/templates: newest first, cursor pages of at most 100 (infra: handlers/templates_list_v2.go). */
function listV2(stores: Stores, query: URLSearchParams) {
  checkTeam(stores, query);
  const limit = queryInt(query, "limit", 100, 1, 100);
  const key = (t: TemplateRecord) => ({ t: t.createdAt.getTime(), id: t.templateID });
  const { page, next } = paginate(listed(stores), key, { limit, order: "desc", token: query.get("nextToken") });
  return json(200, page.map((t) => templateView(t, stores.userID)), next ? { "X-Next-Token": next } : undefined);
}

function byID(stores: Stores, templateID: string): TemplateRecord {
  const template = stores.templates.byID(templateID);
  if (!template) throw new ApiError(404, `Template '${templateID}' not found`);
  return template;
}

function ownByID(stores: Stores, templateID: string): TemplateRecord {
  return own(byID(stores, templateID), templateID);
}

function resolveRef(stores: Stores, ref: string): TemplateRecord {
  const template = stores.templates.resolve(ref)?.template;
  if (!template) throw new ApiError(404, `Template '${ref}' not found`);
  return template;
}

/** The built-in template belongs to another team: readable, not changeable. */
function own(template: TemplateRecord, ref = template.templateID): TemplateRecord {
  if (template.builtIn) throw new ApiError(403, `You do not have access to the template '${ref}'`);
  return template;
}

function checkUnused(stores: Stores, template: { templateID: string }, ref: string): void {
  const users = stores.sandboxes.all().filter((s) => s.templateID === template.templateID);
  for (const state of ["running", "paused"] as const) {
    if (users.some((s) => s.state === state)) {
      throw new ApiError(400, `cannot delete template '${ref}' because there are ${state} sandboxes using it`);
    }
  }
}

function withBuilds(stores: Stores, template: TemplateRecord, query: URLSearchParams) {
  const limit = queryInt(query, "limit", 100, 1, 100);
  const key = (b: TemplateRecord["builds"][number]) => ({ t: b.createdAt.getTime(), id: b.buildID });
  const { page, next } = paginate(template.builds, key, { limit, order: "desc", token: query.get("nextToken") });
  return json(200, withBuildsView(template, page, stores.userID), next ? { "X-Next-Token": next } : undefined);
}

function buildStatus(stores: Stores, ctx: RequestContext) {
  // The build ID is parsed before the template is looked up, so a malformed one is a 400 whatever the
  // template (infra: packages/api/internal/handlers/template_build_status.go).
  const buildID = ctx.params.buildID!;
  if (!isUUID(buildID)) throw new ApiError(400, "Invalid build id");
  const template = byID(stores, ctx.params.id!);
  const found = template.builds.find((b) => b.buildID === buildID.toLowerCase());
  if (!found) throw new ApiError(400, `Build '${buildID}' not found`);
  const offset = queryInt(ctx.query, "logsOffset", 0, 0, 2 ** 31 - 1);
  const limit = queryInt(ctx.query, "limit", 100, 0, 100);
  const level = queryEnum(ctx.query, "level", LEVELS, "debug");
  return json(200, buildInfoView(found, offset, limit, level));
}

function aliasLookup(stores: Stores, raw: string) {
  const alias = parseAlias(raw);
  const template = stores.templates.all().find((t) => t.aliases.includes(alias));
  if (!template) throw new ApiError(404, `Template alias '${alias}' not found`);
  return json(200, { templateID: template.templateID, public: template.public });
}
