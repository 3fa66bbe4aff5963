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
import { findSandboxes, findTemplate } from "./lookup-queries";
import type { GetTemplateArgs, ListSandboxesArgs, SandboxInfo as SandboxInfoShape, TemplateInfo as TemplateInfoShape } from "./lookup-shapes";

/** What a program learns of a template. */
export type TemplateInfo = z.output<typeof TemplateInfoShape>;
/** What a program learns of a sandbox. */
export type SandboxInfo = z.output<typeof SandboxInfoShape>;

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

/**
 * The team's template with this ID, or with this alias (or `namespace/alias` name). Fails naming what
 * was looked for when there is none.
 */
export function getTemplate(args: z.input<typeof GetTemplateArgs>, options?: ClientOptions): Promise<TemplateInfo> {
  return withClient(options, (client) => findTemplate(client, args));
}

/** The team's sandboxes whose metadata has every given key and value (all of them without a filter), newest first. */
export function listSandboxes(args: z.input<typeof ListSandboxesArgs> = {}, options?: ClientOptions): Promise<SandboxInfo[]> {
  return withClient(options, (client) => findSandboxes(client, args));
}
