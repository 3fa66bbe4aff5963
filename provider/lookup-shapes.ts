/**
 * The lookups' arguments and results, declared once: `pulumi-sandbox/lookups` (./lookups.ts) types its
 * functions from them, the plugin validates an invoke's arguments with them (./plugin/invoke.ts), and
 * schema.json's `functions` (./schema/functions.ts), hence every generated SDK, is built from them.
 * Only zod here: the schema builder compiles this file and what it imports, nothing more.
 */
import { z } from "zod";
import { GetSandboxesMetricsArgs, GetTeamMetricsArgs, GetTeamMetricsMaxArgs, SandboxMetric, SandboxMetricOf, TeamMetric, TeamMetricMax } from "./lookup-metrics-shapes";
import { EVENT_LOOKUPS } from "./lookup-event-shapes";
import { GetSandboxArgs, GetTemplateAliasArgs, GetVolumeArgs, SANDBOX_STATES, SandboxDetailInfo, SandboxInfo, TemplateAliasInfo, VolumeDetailInfo } from "./lookup-one-shapes";

export { SANDBOX_STATES, SandboxInfo, SandboxMetric };

export const GetTemplateArgs = z.strictObject({
  templateID: z.string().min(1, { error: "must not be empty" }).optional().describe("The template's ID."),
  alias: z.string().min(1, { error: "must not be empty" }).optional().describe("One of the template's aliases, or its `namespace/alias` name."),
});

export const TemplateInfo = z.object({
  templateID: z.string().describe("The template's ID."),
  buildID: z.string().describe("Its latest ready build."),
  aliases: z.array(z.string()).describe("Its aliases."),
  names: z.array(z.string()).describe("Its names (`namespace/alias`)."),
  public: z.boolean().describe("Whether other teams may use it."),
  cpuCount: z.number().int().describe("vCPUs of its sandboxes."),
  memoryMB: z.number().int().describe("Memory of its sandboxes, in MiB."),
  envdVersion: z.string().describe("Version of the in-sandbox daemon of its latest ready build."),
});

export const ListSandboxesArgs = z.strictObject({
  metadata: z.record(z.string(), z.string()).optional().describe("Only sandboxes whose metadata has every one of these keys and values."),
  state: z.array(z.enum(SANDBOX_STATES)).optional().describe("Only sandboxes in these states (`running`, `paused`). Default: both."),
});

export const NoArgs = z.strictObject({});

export const ListSnapshotsArgs = z.strictObject({
  sandboxID: z.string().min(1, { error: "must not be empty" }).optional().describe("Only snapshots first taken of this sandbox."),
  name: z.string().min(1, { error: "must not be empty" }).optional().describe("Only this snapshot: its ID or name (`name:tag` only that tag's build)."),
});

export const SnapshotInfo = z.object({
  snapshotID: z.string().describe("The snapshot's ID (`POST /sandboxes` starts a sandbox from it)."),
  names: z.array(z.string()).describe("Its names (`namespace/alias`)."),
});

export const VolumeInfo = z.object({
  volumeID: z.string().describe("The volume's ID."),
  name: z.string().describe("Its name, unique in the team."),
});

/** A secret as a lookup shows it: what names it, never its value (no answer of the service carries one). */
export const SecretInfo = z.object({
  secretID: z.string().describe("The secret's ID (`sec_…`)."),
  name: z.string().describe("Its name, unique in the team (lower-case)."),
});

export const GetSandboxLogsArgs = z.strictObject({
  sandboxID: z.string().min(1, { error: "must not be empty" }).describe("The sandbox's ID."),
  start: z.number().int().nonnegative().optional().describe("Only entries from this time on (epoch milliseconds)."),
  limit: z.number().int().positive().optional().describe("At most this many entries (service default 1000)."),
});

export const SandboxLogEntry = z.object({
  timestamp: z.string().describe("When it was logged (RFC 3339)."),
  level: z.enum(["debug", "info", "warn", "error"]).describe("Its level."),
  message: z.string().describe("The message."),
  fields: z.record(z.string(), z.string()).describe("Its structured fields."),
});

export const GetTemplateBuildLogsArgs = GetTemplateArgs.extend({
  buildID: z.string().min(1, { error: "must not be empty" }).describe("The build's ID."),
});

export const TemplateTagInfo = z.object({
  tag: z.string().describe("The tag."),
  buildID: z.string().describe("The build it points to."),
  createdAt: z.string().describe("When it was pointed there (RFC 3339)."),
});

export const ListTemplateTagGroupsArgs = GetTemplateArgs.extend({
  search: z.string().min(1, { error: "must not be empty" }).optional().describe("Only tags whose name holds this text."),
});

export const TemplateTagAssignmentInfo = z.object({
  buildID: z.string().describe("The build the tag was pointed to."),
  assignedAt: z.string().describe("When (RFC 3339)."),
});

export const TemplateTagGroupInfo = z.object({
  tag: z.string().describe("The tag."),
  assignments: z.array(TemplateTagAssignmentInfo).describe("The builds the tag was pointed to (ready ones), latest first; the service keeps the last few."),
  hasMore: z.boolean().describe("Whether the service holds more assignments than it answered."),
});

export const TemplateBuildInfo = z.object({
  buildID: z.string().describe("The build's ID."),
  status: z.enum(["building", "waiting", "ready", "error"]).describe("Where the build is."),
  createdAt: z.string().describe("When it was asked for (RFC 3339)."),
  updatedAt: z.string().describe("When it last changed (RFC 3339)."),
  finishedAt: z.string().optional().describe("When it ended (RFC 3339), once it has."),
  cpuCount: z.number().int().describe("vCPUs of its sandboxes."),
  memoryMB: z.number().int().describe("Memory of its sandboxes, in MiB."),
  diskSizeMB: z.number().int().optional().describe("Disk of its sandboxes, in MiB, once built."),
  envdVersion: z.string().optional().describe("Version of its in-sandbox daemon, once built."),
});

export const BuildLogEntry = z.object({
  timestamp: z.string().describe("When it was logged (RFC 3339)."),
  level: z.enum(["debug", "info", "warn", "error"]).describe("Its level."),
  message: z.string().describe("The message."),
  step: z.string().optional().describe("The step it belongs to: `base`, `finalize` or a step's number."),
});

export const GetSandboxMetricsArgs = z.strictObject({
  sandboxID: z.string().min(1, { error: "must not be empty" }).describe("The sandbox's ID."),
  start: z.number().int().nonnegative().optional().describe("From this time (Unix seconds). Default: the sandbox's start."),
  end: z.number().int().nonnegative().optional().describe("Up to this time (Unix seconds). Default: now."),
});

/** An invoke answers with an object: a list is its one field (`list` names it; the TypeScript function returns the list itself). */
const listOf = <T extends z.ZodType>(items: T, description: string) => z.array(items).describe(description);

/**
 * Every lookup, once: its schema function (`sandbox:index:<name>`), its invoke and its
 * `pulumi-sandbox/lookups` function are all read from this table (queries: ../lookup-queries.ts).
 * `secrets` names the result's fields that are secret: schema.json marks them, the invoke answers them
 * as secrets, and the TypeScript function gives them as secret Outputs.
 */
export const LOOKUPS = {
  getTemplate: {
    description: "Finds a template of the API key's team by ID or alias (give one). Fails naming what was looked for when there is none.",
    args: GetTemplateArgs,
    result: TemplateInfo,
    /** Names of the object types the result holds (a list's items), by field. */
    resultTypes: {},
  },
  listTemplates: {
    description: "Lists the API key's team's templates.",
    args: NoArgs,
    result: z.object({ templates: listOf(TemplateInfo, "The team's templates.") }),
    resultTypes: { templates: "TemplateInfo" },
    list: "templates",
  },
  listTemplateTags: {
    description: "Lists the tags of a template of the team (by ID or alias) and the build each points to.",
    args: GetTemplateArgs,
    result: z.object({ tags: listOf(TemplateTagInfo, "The template's tags.") }),
    resultTypes: { tags: "TemplateTagInfo" },
    list: "tags",
  },
  listDefaultTemplates: {
    description: "Lists the service's default templates, which every team may start sandboxes from (`base` among them).",
    args: NoArgs,
    result: z.object({ templates: listOf(TemplateInfo, "The default templates.") }),
    resultTypes: { templates: "TemplateInfo" },
    list: "templates",
  },
  listTemplateTagGroups: {
    description: "Lists the tags of a template of the team (by ID or alias), each with the builds it was pointed to, latest first: a tag's history, every page of tags.",
    args: ListTemplateTagGroupsArgs,
    result: z.object({ groups: listOf(TemplateTagGroupInfo, "The template's tags with their history.") }),
    resultTypes: { groups: "TemplateTagGroupInfo" },
    list: "groups",
  },
  listTemplateBuilds: {
    description: "Lists the builds of a template of the team (by ID or alias), newest first, every page of them.",
    args: GetTemplateArgs,
    result: z.object({ builds: listOf(TemplateBuildInfo, "The builds, newest first.") }),
    resultTypes: { builds: "TemplateBuildInfo" },
    list: "builds",
  },
  getTemplateBuildLogs: {
    description: "The whole log of one build of a template of the team (by ID or alias), oldest first, every page of it.",
    args: GetTemplateBuildLogsArgs,
    result: z.object({ entries: listOf(BuildLogEntry, "The log entries, oldest first.") }),
    resultTypes: { entries: "BuildLogEntry" },
    list: "entries",
  },
  listSandboxes: {
    description: "Lists the team's sandboxes whose metadata has every given key and value (all of them without a filter), newest first.",
    args: ListSandboxesArgs,
    result: z.object({ sandboxes: listOf(SandboxInfo, "The sandboxes found, newest first.") }),
    resultTypes: { sandboxes: "SandboxInfo" },
    list: "sandboxes",
  },
  getSandboxLogs: {
    description: "The log entries of a sandbox, oldest first. Fails when the team has no such sandbox.",
    args: GetSandboxLogsArgs,
    result: z.object({ entries: listOf(SandboxLogEntry, "The log entries, oldest first.") }),
    resultTypes: { entries: "SandboxLogEntry" },
    list: "entries",
  },
  getSandboxMetrics: {
    description: "The metrics of a running sandbox over a time range (Unix seconds), oldest first; a paused sandbox has none.",
    args: GetSandboxMetricsArgs,
    result: z.object({ metrics: listOf(SandboxMetric, "The readings, oldest first.") }),
    resultTypes: { metrics: "SandboxMetric" },
    list: "metrics",
  },
  listSnapshots: {
    description: "Lists the team's sandbox snapshots, newest first, every page of them.",
    args: ListSnapshotsArgs,
    result: z.object({ snapshots: listOf(SnapshotInfo, "The snapshots found, newest first.") }),
    resultTypes: { snapshots: "SnapshotInfo" },
    list: "snapshots",
  },
  listVolumes: {
    description: "Lists the team's volumes.",
    args: NoArgs,
    result: z.object({ volumes: listOf(VolumeInfo, "The team's volumes.") }),
    resultTypes: { volumes: "VolumeInfo" },
    list: "volumes",
  },
  listSecrets: {
    description: "Lists the team's secrets by ID and name, every page of them; no value (the service never answers one).",
    args: NoArgs,
    result: z.object({ secrets: listOf(SecretInfo, "The team's secrets.") }),
    resultTypes: { secrets: "SecretInfo" },
    list: "secrets",
  },
  getSandbox: {
    description: "One sandbox of the team (running or paused) by ID, with its resources, lifecycle and in-sandbox API token (secret). Fails naming the ID when the team has no such sandbox.",
    args: GetSandboxArgs,
    result: SandboxDetailInfo,
    resultTypes: {},
    secrets: ["envdAccessToken"],
  },
  getVolume: {
    description: "One volume of the team by ID, with a fresh token of its content API (secret). Fails naming the ID when the team has no such volume.",
    args: GetVolumeArgs,
    result: VolumeDetailInfo,
    resultTypes: {},
    secrets: ["token"],
  },
  getTemplateAlias: {
    description: "The template of the team an alias names (`GET /templates/aliases/{alias}`), and whether it is public. Fails naming the alias when no template has it, or another team's does.",
    args: GetTemplateAliasArgs,
    result: TemplateAliasInfo,
    resultTypes: {},
  },
  getTeamMetrics: {
    description: "The team's metrics over a time range (Unix seconds; default the last 7 days), oldest first: sandboxes running and the start rate. The team is the API key's, found with the access token unless `teamID` is given.",
    args: GetTeamMetricsArgs,
    result: z.object({ metrics: listOf(TeamMetric, "The readings, oldest first.") }),
    resultTypes: { metrics: "TeamMetric" },
    list: "metrics",
  },
  getTeamMetricsMax: {
    description: "The highest reading of one of the team's metrics (`concurrent_sandboxes` or `sandbox_start_rate`) over a time range, and when it was. The team is found as for getTeamMetrics.",
    args: GetTeamMetricsMaxArgs,
    result: TeamMetricMax,
    resultTypes: {},
  },
  getSandboxesMetrics: {
    description: "The latest metrics of each of the given sandboxes of the team; a paused sandbox has none. Fails naming an ID the team has no sandbox of.",
    args: GetSandboxesMetricsArgs,
    result: z.object({ metrics: listOf(SandboxMetricOf, "The latest reading of each running sandbox, in the order asked.") }),
    resultTypes: { metrics: "SandboxMetricOf" },
    list: "metrics",
  },
  ...EVENT_LOOKUPS,
} as const;

export type LookupName = keyof typeof LOOKUPS;
/** The result's top-level fields that are secret, by lookup. */
export type LookupSecrets<K extends LookupName> = (typeof LOOKUPS)[K] extends { secrets: readonly (infer S extends string)[] } ? S : never;
export function secretsOf(name: LookupName): readonly string[] {
  return (LOOKUPS[name] as { secrets?: readonly string[] }).secrets ?? [];
}
export type LookupArgs<K extends LookupName> = z.output<(typeof LOOKUPS)[K]["args"]>;
export type LookupResult<K extends LookupName> = z.output<(typeof LOOKUPS)[K]["result"]>;
