/**
 * The lookups as the engine's invokes (`sandbox:index:getTemplate`, `sandbox:index:listSandboxes`):
 * the same queries `pulumi-sandbox/lookups` runs in a TypeScript program (../lookup-queries.ts), here
 * on the plugin's client, so the provider's config (Configure) is their credentials in any language.
 */
import type { InvokeResult } from "@pulumi/pulumi/provider";
import { findSandboxes, findTemplate } from "../lookup-queries";
import { LOOKUPS, type LookupName } from "../lookup-shapes";
import { platform } from "../runtime/context";
import { PACKAGE_TOKEN_PREFIX } from "./adapter";
import { unwrap } from "./wire-values";

const RUN: { [K in LookupName]: (args: never) => Promise<Record<string, unknown>> } = {
  getTemplate: (args: Parameters<typeof findTemplate>[1]) => findTemplate(platform(), args),
  listSandboxes: async (args: Parameters<typeof findSandboxes>[1]) => ({ sandboxes: await findSandboxes(platform(), args) }),
};

/** Answers an invoke; bad arguments come back as failures naming the field, before any call. */
export async function invoke(token: string, given: Record<string, unknown>): Promise<InvokeResult> {
  const name = token.startsWith(PACKAGE_TOKEN_PREFIX) ? token.slice(PACKAGE_TOKEN_PREFIX.length) : "";
  if (!(name in LOOKUPS)) {
    throw new Error(`pulumi-resource-sandbox: unknown function "${token}"; this provider serves ${Object.keys(LOOKUPS).map((n) => PACKAGE_TOKEN_PREFIX + n).join(", ")}`);
  }
  const lookup = name as LookupName;
  const parsed = LOOKUPS[lookup].args.safeParse(withoutAbsent(given));
  if (!parsed.success) {
    return { failures: parsed.error.issues.map((i) => ({ property: "", reason: `${name}: ${i.path.join(".") || "arguments"}: ${i.message}` })) };
  }
  return { outputs: await (RUN[lookup] as (args: unknown) => Promise<Record<string, unknown>>)(parsed.data) };
}

/** Plain values (a secret argument arrives wrapped); an argument sent as null is absent, as the schema says. */
function withoutAbsent(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(unwrap(values).plain).filter(([, v]) => v !== null && v !== undefined));
}
