/**
 * The lookups' arguments and results, declared once: `pulumi-sandbox/lookups` (./lookups.ts) types its
 * functions from them, the plugin validates an invoke's arguments with them (./plugin/invoke.ts), and
 * schema.json's `functions` (./schema/functions.ts), hence every generated SDK, is built from them.
 * Only zod here: the schema builder compiles this file and what it imports, nothing more.
 */
import { z } from "zod";

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

export const SANDBOX_STATES = ["running", "paused"] as const;

export const ListSandboxesArgs = z.strictObject({
  metadata: z.record(z.string(), z.string()).optional().describe("Only sandboxes whose metadata has every one of these keys and values."),
  state: z.array(z.enum(SANDBOX_STATES)).optional().describe("Only sandboxes in these states (`running`, `paused`). Default: both."),
});

export const SandboxInfo = z.object({
  sandboxID: z.string().describe("The sandbox's ID."),
  templateID: z.string().describe("The ID of its template."),
  alias: z.string().optional().describe("The alias of its template, when it has one."),
  state: z.enum(SANDBOX_STATES).describe("`running` or `paused`."),
  metadata: z.record(z.string(), z.string()).describe("Its metadata."),
  startedAt: z.string().describe("When it started (RFC 3339)."),
  endAt: z.string().describe("When it expires unless extended (RFC 3339)."),
});

/** An invoke answers with an object: the list is its one field. */
export const ListSandboxesResult = z.object({
  sandboxes: z.array(SandboxInfo).describe("The sandboxes found, newest first."),
});

/** The lookups as the schema's functions (`sandbox:index:<name>`). */
export const LOOKUPS = {
  getTemplate: {
    description: "Finds a template of the API key's team by ID or alias (give one). Fails naming what was looked for when there is none.",
    args: GetTemplateArgs,
    result: TemplateInfo,
    /** Names of the object types the result holds (a list's items), by field. */
    resultTypes: {},
  },
  listSandboxes: {
    description: "Lists the team's sandboxes whose metadata has every given key and value (all of them without a filter), newest first.",
    args: ListSandboxesArgs,
    result: ListSandboxesResult,
    resultTypes: { sandboxes: "SandboxInfo" },
  },
} as const;

export type LookupName = keyof typeof LOOKUPS;
