/**
 * What the lookups ask the service, on a client the caller brings: the program's own client
 * (`pulumi-sandbox/lookups`, ./lookups.ts) or the plugin's (an invoke, ./plugin/invoke.ts). Arguments
 * and results are the shapes of ./lookup-shapes.ts.
 */
import type { z } from "zod";
import type { PlatformClient } from "../sdk/platform/client";
import type { GetTemplateArgs, ListSandboxesArgs, SandboxInfo, TemplateInfo } from "./lookup-shapes";

/**
 * The team's template with this ID, or with this alias (or `namespace/alias` name): GET /templates
 * lists the templates of the API key's team. Fails naming what was looked for when there is none.
 */
export async function findTemplate(client: PlatformClient, args: z.input<typeof GetTemplateArgs>): Promise<z.output<typeof TemplateInfo>> {
  const wanted = args.templateID ?? args.alias;
  if (!wanted) throw new Error("getTemplate: give templateID or alias");
  const found = (await client.templates.list()).find((t) => t.templateID === wanted || t.aliases.includes(wanted) || t.names.includes(wanted));
  if (!found) throw new Error(`getTemplate: no template ${args.templateID ? "with ID" : "with alias"} "${wanted}" belongs to this API key's team`);
  const { templateID, buildID, aliases, names, cpuCount, memoryMB, envdVersion } = found;
  return { templateID, buildID, aliases, names, public: found.public, cpuCount, memoryMB, envdVersion };
}

/** The team's sandboxes whose metadata has every given key and value (all of them without a filter), newest first. */
export async function findSandboxes(client: PlatformClient, args: z.input<typeof ListSandboxesArgs> = {}): Promise<z.output<typeof SandboxInfo>[]> {
  const listed = await client.sandboxes.listAll({ ...(args.metadata ? { metadata: args.metadata } : {}), state: args.state ?? ["running", "paused"] });
  return listed.map((s) => ({
    sandboxID: s.sandboxID, templateID: s.templateID, ...(s.alias ? { alias: s.alias } : {}), state: s.state,
    metadata: { ...s.metadata }, startedAt: s.startedAt, endAt: s.endAt,
  }));
}
