/**
 * What the lookups ask the service, on a client the caller brings: the program's own client
 * (`pulumi-sandbox/lookups`, ./lookups.ts) or the plugin's (an invoke, ./plugin/invoke.ts). One query
 * per lookup of the table in ./lookup-shapes.ts, whose arguments and results they take and give.
 */
import type { PlatformClient } from "../sdk/platform/client";
import { lifecycleEvents, sandboxLifecycleEvents, webhook, webhooks } from "./lookup-event-queries";
import { allPages, PAGE_SIZE } from "./lookup-paging";
import { LOOKUPS, type LookupArgs, type LookupName, type LookupResult } from "./lookup-shapes";
import { readingOf, sandboxDetail, sandboxesMetrics, templateAlias, volumeDetail } from "./lookup-one-queries";
import { teamMetrics, teamMetricsMax } from "./lookup-team";
import { buildLogs, defaultTemplates, findTemplate, templateBuilds, templateInfo, templateTagGroups, templateTags } from "./lookup-template-queries";

type Query<K extends LookupName> = (client: PlatformClient, args: LookupArgs<K>, pageSize?: number) => Promise<LookupResult<K>>;

export const QUERIES: { [K in LookupName]: Query<K> } = {
  getTemplate: (client, args) => findTemplate(client, args),
  listTemplates: async (client) => ({ templates: (await client.templates.list()).map(templateInfo) }),
  listTemplateTags: (client, args) => templateTags(client, args),
  listDefaultTemplates: (client) => defaultTemplates(client),
  listTemplateTagGroups: (client, args, pageSize) => templateTagGroups(client, args, pageSize),
  listTemplateBuilds: (client, args, pageSize) => templateBuilds(client, args, pageSize),
  getTemplateBuildLogs: (client, args, pageSize) => buildLogs(client, args, pageSize),
  listSandboxes: async (client, args, pageSize = PAGE_SIZE) => {
    const listed = await client.sandboxes.listAll({ ...(args.metadata ? { metadata: args.metadata } : {}), state: args.state ?? ["running", "paused"], limit: pageSize });
    const sandboxes = listed.map((s) => ({
      sandboxID: s.sandboxID, templateID: s.templateID, ...(s.alias ? { alias: s.alias } : {}), state: s.state,
      metadata: { ...s.metadata }, startedAt: s.startedAt, endAt: s.endAt,
    }));
    return { sandboxes };
  },
  // GET /sandboxes/{id}/logs answers one list, bounded by `limit`: it has no pages to follow.
  getSandboxLogs: async (client, args) => {
    const { logEntries } = await client.sandboxes.logs(args.sandboxID, { start: args.start, limit: args.limit });
    return { entries: logEntries.map(({ timestamp, level, message, fields }) => ({ timestamp, level, message, fields: { ...fields } })) };
  },
  getSandboxMetrics: async (client, args) => {
    const readings = await client.sandboxes.metricsOf(args.sandboxID, { start: args.start, end: args.end });
    return { metrics: readings.map(readingOf) };
  },
  listSnapshots: async (client, args, pageSize = PAGE_SIZE) => {
    const snapshots = await allPages(async (nextToken) => {
      const page = await client.snapshots.list({ ...args, limit: pageSize, nextToken });
      return { items: page.snapshots, nextToken: page.nextToken };
    });
    return { snapshots: snapshots.map(({ snapshotID, names }) => ({ snapshotID, names: [...names] })) };
  },
  listSecrets: async (client, _args, pageSize = PAGE_SIZE) => {
    const secrets = await allPages(async (nextToken) => {
      const page = await client.secrets.list({ limit: pageSize, nextToken });
      return { items: page.secrets, nextToken: page.nextToken };
    });
    return { secrets: secrets.map(({ secretID, name }) => ({ secretID, name })) };
  },
  listVolumes: async (client) => ({ volumes: (await client.volumes.list()).map(({ volumeID, name }) => ({ volumeID, name })) }),
  getSandbox: (client, args) => sandboxDetail(client, args),
  getVolume: (client, args) => volumeDetail(client, args),
  getTemplateAlias: (client, args) => templateAlias(client, args),
  getTeamMetrics: (client, args) => teamMetrics(client, args),
  getTeamMetricsMax: (client, args) => teamMetricsMax(client, args),
  getSandboxesMetrics: (client, args) => sandboxesMetrics(client, args),
  listLifecycleEvents: (client, args) => lifecycleEvents(client, args),
  getSandboxLifecycleEvents: (client, args) => sandboxLifecycleEvents(client, args),
  listWebhooks: (client) => webhooks(client),
  getWebhook: (client, args) => webhook(client, args),
};

/**
 * The lookup's arguments checked against its shape, or the problems, each naming the lookup and the
 * field: the invoke reports them as failures, the TypeScript function throws them.
 */
export function parseArgs(name: LookupName, given: unknown): { args: unknown } | { problems: string[] } {
  const parsed = LOOKUPS[name].args.safeParse(given);
  if (parsed.success) return { args: parsed.data };
  return { problems: parsed.error.issues.map((i) => `${name}: ${i.path.join(".") || "arguments"}: ${i.message}`) };
}
