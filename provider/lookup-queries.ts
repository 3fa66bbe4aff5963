/**
 * What the lookups ask the service, on a client the caller brings: the program's own client
 * (`pulumi-sandbox/lookups`, ./lookups.ts) or the plugin's (an invoke, ./plugin/invoke.ts). One query
 * per lookup of the table in ./lookup-shapes.ts, whose arguments and results they take and give.
 */
import type { PlatformClient } from "../sdk/platform/client";
import type { Template } from "../sdk/schemas/templates";
import { LOOKUPS, type LookupArgs, type LookupName, type LookupResult } from "./lookup-shapes";

/** Page size asked of the service's paged lists (its maximum); a test asks for smaller pages. */
export const PAGE_SIZE = 100;

type Query<K extends LookupName> = (client: PlatformClient, args: LookupArgs<K>, pageSize?: number) => Promise<LookupResult<K>>;

export const QUERIES: { [K in LookupName]: Query<K> } = {
  getTemplate: (client, args) => findTemplate(client, args),
  listTemplates: async (client) => ({ templates: (await client.templates.list()).map(templateInfo) }),
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
  listSnapshots: async (client, args, pageSize = PAGE_SIZE) => {
    const snapshots = await allPages(async (nextToken) => {
      const page = await client.snapshots.list({ ...args, limit: pageSize, nextToken });
      return { items: page.snapshots, nextToken: page.nextToken };
    });
    return { snapshots: snapshots.map(({ snapshotID, names }) => ({ snapshotID, names: [...names] })) };
  },
  listVolumes: async (client) => ({ volumes: (await client.volumes.list()).map(({ volumeID, name }) => ({ volumeID, name })) }),
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

/**
 * The team's template with this ID, or with this alias (or `namespace/alias` name): GET /templates
 * lists the templates of the API key's team. Fails naming what was looked for when there is none.
 */
async function findTemplate(client: PlatformClient, args: LookupArgs<"getTemplate">): Promise<LookupResult<"getTemplate">> {
  const wanted = args.templateID ?? args.alias;
  if (!wanted) throw new Error("getTemplate: give templateID or alias");
  const found = (await client.templates.list()).find((t) => t.templateID === wanted || t.aliases.includes(wanted) || t.names.includes(wanted));
  if (!found) throw new Error(`getTemplate: no template ${args.templateID ? "with ID" : "with alias"} "${wanted}" belongs to this API key's team`);
  return templateInfo(found);
}

function templateInfo(t: Template): LookupResult<"getTemplate"> {
  const { templateID, buildID, aliases, names, cpuCount, memoryMB, envdVersion } = t;
  return { templateID, buildID, aliases: [...aliases], names: [...names], public: t.public, cpuCount, memoryMB, envdVersion };
}

/** Every page of a cursor-paged list; a token seen before ends it (a service repeating one has no more pages). */
async function allPages<T>(page: (nextToken?: string) => Promise<{ items: T[]; nextToken?: string }>): Promise<T[]> {
  const all: T[] = [];
  const seen = new Set<string>();
  let token: string | undefined;
  for (;;) {
    const { items, nextToken } = await page(token);
    all.push(...items);
    if (!nextToken || seen.has(nextToken)) return all;
    seen.add(nextToken);
    token = nextToken;
  }
}
