/**
 * The lookups as the engine's invokes (`sandbox:index:<name>`, one for each entry of LOOKUPS):
 * the same queries `pulumi-sandbox/lookups` runs in a TypeScript program (../lookup-queries.ts), here
 * on the plugin's client, so the provider's config (Configure) is their credentials in any language.
 */
import type { InvokeResult } from "@pulumi/pulumi/provider";
import { parseArgs, QUERIES } from "../lookup-queries";
import { LOOKUPS, secretsOf, type LookupName } from "../lookup-shapes";
import { platform } from "../runtime/context";
import { wrapped } from "../runtime/secret-net";
import { PACKAGE_TOKEN_PREFIX } from "./adapter";
import { unwrap } from "./wire-values";

/** Answers an invoke; bad arguments come back as failures naming the field, before any call. */
export async function invoke(token: string, given: Record<string, unknown>): Promise<InvokeResult> {
  const name = token.startsWith(PACKAGE_TOKEN_PREFIX) ? token.slice(PACKAGE_TOKEN_PREFIX.length) : "";
  if (!(name in LOOKUPS)) {
    throw new Error(`pulumi-resource-sandbox: unknown function "${token}"; this provider serves ${Object.keys(LOOKUPS).map((n) => PACKAGE_TOKEN_PREFIX + n).join(", ")}`);
  }
  const lookup = name as LookupName;
  const parsed = parseArgs(lookup, withoutAbsent(given));
  if ("problems" in parsed) return { failures: parsed.problems.map((reason) => ({ property: "", reason })) };
  const query = QUERIES[lookup] as (client: ReturnType<typeof platform>, args: unknown) => Promise<Record<string, unknown>>;
  return { outputs: withSecrets(lookup, await query(platform(), parsed.args)) };
}

/** The result with the lookup's secret fields wrapped as secrets (the plugin accepts them: ./serve.ts). */
function withSecrets(lookup: LookupName, outputs: Record<string, unknown>): Record<string, unknown> {
  const out = { ...outputs };
  for (const field of secretsOf(lookup)) if (out[field] !== undefined) out[field] = wrapped(out[field]);
  return out;
}

/** Plain values (a secret argument arrives wrapped); an argument sent as null is absent, as the schema says. */
function withoutAbsent(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(unwrap(values).plain).filter(([, v]) => v !== null && v !== undefined));
}
