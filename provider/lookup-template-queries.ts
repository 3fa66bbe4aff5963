/**
 * The lookups of templates (./lookup-queries.ts holds the table): a template by ID or alias, and its
 * tags, builds and a build's log. Each finds the template among the team's first (GET /templates), so
 * an alias works wherever an ID does and a template of another team is "not found" the same way.
 */
import type { PlatformClient } from "../sdk/platform/client";
import type { Template } from "../sdk/schemas/templates";
import { allPages, PAGE_SIZE } from "./lookup-paging";
import type { LookupArgs, LookupResult } from "./lookup-shapes";

type TemplateRef = LookupArgs<"getTemplate">;

/** The team's template with this ID, or with this alias (or `namespace/alias` name). Fails naming what was looked for. */
export async function findTemplate(client: PlatformClient, args: TemplateRef, lookup = "getTemplate"): Promise<LookupResult<"getTemplate">> {
  const wanted = args.templateID ?? args.alias;
  if (!wanted) throw new Error(`${lookup}: give templateID or alias`);
  const found = (await client.templates.list()).find((t) => t.templateID === wanted || t.aliases.includes(wanted) || t.names.includes(wanted));
  if (!found) throw new Error(`${lookup}: no template ${args.templateID ? "with ID" : "with alias"} "${wanted}" belongs to this API key's team`);
  return templateInfo(found);
}

export function templateInfo(t: Template): LookupResult<"getTemplate"> {
  const { templateID, buildID, aliases, names, cpuCount, memoryMB, envdVersion } = t;
  return { templateID, buildID, aliases: [...aliases], names: [...names], public: t.public, cpuCount, memoryMB, envdVersion };
}

/** GET /templates/{id}/tags: each tag and the build it points to. */
export async function templateTags(client: PlatformClient, args: TemplateRef): Promise<LookupResult<"listTemplateTags">> {
  const { templateID } = await findTemplate(client, args, "listTemplateTags");
  return { tags: (await client.builds.tags(templateID)).map(({ tag, buildID, createdAt }) => ({ tag, buildID, createdAt })) };
}

/** GET /templates/{id}, page after page (X-Next-Token): the builds, newest first. */
export async function templateBuilds(client: PlatformClient, args: TemplateRef, pageSize = PAGE_SIZE): Promise<LookupResult<"listTemplateBuilds">> {
  const { templateID } = await findTemplate(client, args, "listTemplateBuilds");
  const builds = await allPages(async (nextToken) => {
    const page = await client.templates.buildsPage(templateID, { limit: pageSize, nextToken });
    return { items: page.template.builds, nextToken: page.nextToken };
  });
  return {
    builds: builds.map((b) => ({
      buildID: b.buildID, status: b.status, createdAt: b.createdAt, updatedAt: b.updatedAt, cpuCount: b.cpuCount, memoryMB: b.memoryMB,
      ...(b.finishedAt ? { finishedAt: b.finishedAt } : {}),
      ...(b.diskSizeMB !== undefined ? { diskSizeMB: b.diskSizeMB } : {}),
      ...(b.envdVersion ? { envdVersion: b.envdVersion } : {}),
    })),
  };
}

/** A build's status call read from `logsOffset` 0 until a page comes back empty: its whole log. */
export async function buildLogs(client: PlatformClient, args: LookupArgs<"getTemplateBuildLogs">, pageSize = PAGE_SIZE): Promise<LookupResult<"getTemplateBuildLogs">> {
  const { templateID } = await findTemplate(client, args, "getTemplateBuildLogs");
  const entries: LookupResult<"getTemplateBuildLogs">["entries"] = [];
  for (;;) {
    const page = await client.templates.buildStatus(templateID, args.buildID, { logsOffset: entries.length, limit: pageSize });
    if (page.logEntries.length === 0) return { entries };
    for (const { timestamp, level, message, step } of page.logEntries) entries.push({ timestamp, level, message, ...(step ? { step } : {}) });
  }
}

/** GET /default-templates: the service's own templates, which no team owns. */
export async function defaultTemplates(client: PlatformClient): Promise<LookupResult<"listDefaultTemplates">> {
  return { templates: (await client.templates.listDefault()).map(templateInfo) };
}

/** GET /templates/{id}/tags/groups, page after page (`tagsCursor`): each tag with the builds it pointed to. */
export async function templateTagGroups(client: PlatformClient, args: LookupArgs<"listTemplateTagGroups">, pageSize = PAGE_SIZE): Promise<LookupResult<"listTemplateTagGroups">> {
  const { templateID } = await findTemplate(client, args, "listTemplateTagGroups");
  const groups = await allPages(async (cursor) => {
    const page = await client.templates.tagGroups(templateID, { tagsLimit: pageSize, ...(cursor ? { tagsCursor: cursor } : {}), ...(args.search ? { search: args.search } : {}) });
    return { items: page.tags, nextToken: page.nextCursor ?? undefined };
  });
  return { groups: groups.map(({ tag, assignments, hasMore }) => ({ tag, assignments: assignments.map(({ buildId, assignedAt }) => ({ buildID: buildId, assignedAt })), hasMore })) };
}
