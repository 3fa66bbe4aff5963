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
import "../sdk/node-version";
import { PlatformClient } from "../sdk/client";
import type { ClientOptions } from "../sdk/config";
import { CONFIG_KEYS } from "./config-keys";

/** What a program learns of a template. */
export interface TemplateInfo {
  templateID: string;
  /** The latest ready build. */
  buildID: string;
  aliases: string[];
  names: string[];
  public: boolean;
  cpuCount: number;
  memoryMB: number;
  envdVersion: string;
}

/** What a program learns of a sandbox. */
export interface SandboxInfo {
  sandboxID: string;
  templateID: string;
  alias?: string | undefined;
  state: "running" | "paused";
  metadata: Record<string, string>;
  startedAt: string;
  endAt: string;
}

/** The stack's `sandbox:*` config, as the provider reads it (the env vars fill in what is not set). */
function stackOptions(): ClientOptions {
  const options: ClientOptions = {};
  for (const [option, key] of Object.entries(CONFIG_KEYS) as [keyof typeof CONFIG_KEYS, string][]) {
    // The raw value: Config.get would warn on each secret, and these never leave this process.
    const value = pulumi.runtime.getConfig(key);
    if (value !== undefined && value !== "") options[option] = value;
  }
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

/**
 * The team's template with this ID, or with this alias (or `namespace/alias` name): GET /templates
 * lists the templates of the API key's team. Fails naming what was looked for when there is none.
 */
export async function getTemplate(args: { templateID?: string; alias?: string }, options?: ClientOptions): Promise<TemplateInfo> {
  const wanted = args.templateID ?? args.alias;
  if (!wanted) throw new Error("getTemplate: give templateID or alias");
  return withClient(options, async (client) => {
    const found = (await client.templates.list()).find((t) => t.templateID === wanted || t.aliases.includes(wanted) || t.names.includes(wanted));
    if (!found) throw new Error(`getTemplate: no template ${args.templateID ? "with ID" : "with alias"} "${wanted}" belongs to this API key's team`);
    const { templateID, buildID, aliases, names, cpuCount, memoryMB, envdVersion } = found;
    return { templateID, buildID, aliases, names, public: found.public, cpuCount, memoryMB, envdVersion };
  });
}

/** The team's sandboxes whose metadata has every given key and value (all of them without a filter), newest first. */
export async function listSandboxes(args: { metadata?: Record<string, string>; state?: ("running" | "paused")[] } = {}, options?: ClientOptions): Promise<SandboxInfo[]> {
  return withClient(options, async (client) => {
    const listed = await client.sandboxes.listAll({ ...(args.metadata ? { metadata: args.metadata } : {}), state: args.state ?? ["running", "paused"] });
    return listed.map((s) => ({
      sandboxID: s.sandboxID, templateID: s.templateID, alias: s.alias ?? undefined, state: s.state,
      metadata: { ...s.metadata }, startedAt: s.startedAt, endAt: s.endAt,
    }));
  });
}
