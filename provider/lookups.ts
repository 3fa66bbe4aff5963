/**
 * Lookups: plain async functions a program calls to find what exists in the service, without
 * managing it (use `Template.get` / `Sandbox.get` to bring one resource into the stack read-only).
 * They run in the program, with the stack's `sandbox:*` config (or the E2B_* env vars) as credentials:
 *
 *   import { getTemplate, listSandboxes } from "pulumi-sandbox/lookups";
 *   const base = await getTemplate({ alias: "base" });
 *   const mine = await listSandboxes({ metadata: { team: "data" } });
 *
 * An entry point of its own (`pulumi-sandbox/lookups`): it loads the HTTP client, which a program that
 * only declares resources never needs.
 */
import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import "../sdk/node-version";
import { PlatformClient } from "../sdk/platform/client";
import type { ClientOptions } from "../sdk/config";
import { optionsFromConfig } from "./config-keys";
import { parseArgs, QUERIES } from "./lookup-queries";
import { LOOKUPS, secretsOf, type LookupName, type LookupResult, type LookupSecrets } from "./lookup-shapes";
import type * as shapes from "./lookup-shapes";

/** What a program learns of a template. */
export type TemplateInfo = z.output<typeof shapes.TemplateInfo>;
/** What a program learns of a sandbox. */
export type SandboxInfo = z.output<typeof shapes.SandboxInfo>;
/** One log entry of a sandbox. */
export type SandboxLogEntry = z.output<typeof shapes.SandboxLogEntry>;
/** What a program learns of a snapshot. */
export type SnapshotInfo = z.output<typeof shapes.SnapshotInfo>;
/** A tag of a template and the build it points to. */
export type TemplateTagInfo = z.output<typeof shapes.TemplateTagInfo>;
/** A tag of a template and the builds it was pointed to, latest first. */
export type TemplateTagGroupInfo = z.output<typeof shapes.TemplateTagGroupInfo>;
/** A build of a template. */
export type TemplateBuildInfo = z.output<typeof shapes.TemplateBuildInfo>;
/** One line of a build's log. */
export type BuildLogEntry = z.output<typeof shapes.BuildLogEntry>;
/** One metrics reading of a sandbox. */
export type SandboxMetric = z.output<typeof shapes.SandboxMetric>;
/** What a program learns of a secret: its ID and name, never its value. */
export type SecretInfo = z.output<typeof shapes.SecretInfo>;
/** What a program learns of a volume. */
export type VolumeInfo = z.output<typeof shapes.VolumeInfo>;
/** What a program learns of one sandbox (getSandbox); its token is a secret Output. */
export type SandboxDetailInfo = Awaited<ReturnType<typeof getSandbox>>;
/** What a program learns of one volume (getVolume); its token is a secret Output. */
export type VolumeDetailInfo = Awaited<ReturnType<typeof getVolume>>;
/** The template an alias names. */
export type TemplateAliasInfo = Awaited<ReturnType<typeof getTemplateAlias>>;
/** One reading of the team's metrics. */
export type TeamMetric = Awaited<ReturnType<typeof getTeamMetrics>>[number];
/** The highest reading of one of the team's metrics, and when. */
export type TeamMetricMax = Awaited<ReturnType<typeof getTeamMetricsMax>>;
/** The latest reading of one sandbox, with its ID. */
export type SandboxMetricOf = Awaited<ReturnType<typeof getSandboxesMetrics>>[number];

/** The stack's `sandbox:*` config, as the provider reads it (the env vars fill in what is not set). */
function stackOptions(): ClientOptions {
  // The raw value: Config.get would warn on each secret, and these never leave this process.
  const { options, problems } = optionsFromConfig((key) => pulumi.runtime.getConfig(key));
  if (problems.length > 0) throw new Error(problems.join("\n"));
  return options;
}

async function withClient<T>(options: ClientOptions | undefined, use: (client: PlatformClient) => Promise<T>): Promise<T> {
  const client = new PlatformClient({ ...stackOptions(), ...options });
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

/** The lookup's secret fields are secret Outputs here (an export of one stays secret in state and output). */
type Secreted<R, S extends string> = [S] extends [never] ? R : Omit<R, S> & { [F in keyof Pick<R, S & keyof R>]: pulumi.Output<NonNullable<R[F]>> };
/** A list lookup gives the list itself here (an invoke must answer an object, hence the field). */
type Answer<K extends LookupName> = (typeof LOOKUPS)[K] extends { list: infer F extends keyof LookupResult<K> } ? LookupResult<K>[F] : Secreted<LookupResult<K>, LookupSecrets<K>>;
type Lookup<K extends LookupName> = (args?: z.input<(typeof LOOKUPS)[K]["args"]>, options?: ClientOptions) => Promise<Answer<K>>;

/** The TypeScript function of a lookup of the table: same arguments, checks, query and messages as its invoke. */
function lookup<K extends LookupName>(name: K): Lookup<K> {
  return (args, options) =>
    withClient(options, async (client) => {
      const parsed = parseArgs(name, args ?? {});
      if ("problems" in parsed) throw new Error(parsed.problems.join("\n"));
      const result = (await (QUERIES[name] as (c: PlatformClient, a: unknown) => Promise<Record<string, unknown>>)(client, parsed.args));
      const field: string | undefined = (LOOKUPS[name] as { list?: string }).list;
      for (const secret of secretsOf(name)) if (result[secret] !== undefined) result[secret] = pulumi.secret(result[secret]);
      return (field ? result[field] : result) as Answer<K>;
    });
}

/**
 * The team's template with this ID, or with this alias (or `namespace/alias` name). Fails naming what
 * was looked for when there is none.
 */
export const getTemplate: Lookup<"getTemplate"> = lookup("getTemplate");
/** The team's templates. */
export const listTemplates: Lookup<"listTemplates"> = lookup("listTemplates");
/** A template's tags (by ID or alias) and the build each points to. */
export const listTemplateTags: Lookup<"listTemplateTags"> = lookup("listTemplateTags");
/** The service's default templates, which every team may start sandboxes from. */
export const listDefaultTemplates: Lookup<"listDefaultTemplates"> = lookup("listDefaultTemplates");
/** A template's tags (by ID or alias), each with the builds it was pointed to, latest first. */
export const listTemplateTagGroups: Lookup<"listTemplateTagGroups"> = lookup("listTemplateTagGroups");
/** A template's builds (by ID or alias), newest first, every page. */
export const listTemplateBuilds: Lookup<"listTemplateBuilds"> = lookup("listTemplateBuilds");
/** The whole log of one build of a template (by ID or alias), oldest first. */
export const getTemplateBuildLogs: Lookup<"getTemplateBuildLogs"> = lookup("getTemplateBuildLogs");
/** The team's sandboxes whose metadata has every given key and value (all of them without a filter), newest first. */
export const listSandboxes: Lookup<"listSandboxes"> = lookup("listSandboxes");
/** The log entries of a sandbox, oldest first. */
export const getSandboxLogs: Lookup<"getSandboxLogs"> = lookup("getSandboxLogs");
/** The metrics of a running sandbox over a time range (Unix seconds), oldest first. */
export const getSandboxMetrics: Lookup<"getSandboxMetrics"> = lookup("getSandboxMetrics");
/** The team's snapshots (optionally of one sandbox, or by name), newest first, every page. */
export const listSnapshots: Lookup<"listSnapshots"> = lookup("listSnapshots");
/** The team's secrets by ID and name, every page; no value (the service never answers one). */
export const listSecrets: Lookup<"listSecrets"> = lookup("listSecrets");
/** The team's volumes. */
export const listVolumes: Lookup<"listVolumes"> = lookup("listVolumes");
/** One sandbox of the team (running or paused) by ID; its in-sandbox API token is a secret Output. */
export const getSandbox: Lookup<"getSandbox"> = lookup("getSandbox");
/** One volume of the team by ID, with a fresh content token (a secret Output). */
export const getVolume: Lookup<"getVolume"> = lookup("getVolume");
/** The template an alias names, and whether it is public. */
export const getTemplateAlias: Lookup<"getTemplateAlias"> = lookup("getTemplateAlias");
/** The team's metrics over a time range (Unix seconds), oldest first; `teamID` found with the access token unless given. */
export const getTeamMetrics: Lookup<"getTeamMetrics"> = lookup("getTeamMetrics");
/** The highest reading of one of the team's metrics over a time range, and when. */
export const getTeamMetricsMax: Lookup<"getTeamMetricsMax"> = lookup("getTeamMetricsMax");
/** The latest metrics of each given sandbox (a paused one has none), in the order asked. */
export const getSandboxesMetrics: Lookup<"getSandboxesMetrics"> = lookup("getSandboxesMetrics");
/** The team's sandbox lifecycle events of the last 7 days, newest first, with the service's filters. */
export const listLifecycleEvents: Lookup<"listLifecycleEvents"> = lookup("listLifecycleEvents");
/** The lifecycle events of one sandbox, with the same filters. */
export const getSandboxLifecycleEvents: Lookup<"getSandboxLifecycleEvents"> = lookup("getSandboxLifecycleEvents");
/** The team's lifecycle webhooks (never a signature secret). */
export const listWebhooks: Lookup<"listWebhooks"> = lookup("listWebhooks");
/** One lifecycle webhook of the team by ID (never its signature secret). */
export const getWebhook: Lookup<"getWebhook"> = lookup("getWebhook");
