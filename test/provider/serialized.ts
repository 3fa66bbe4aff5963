/**
 * The provider texts a resource's state can hold: the one the classes write now (provider/handle.ts),
 * and the one 0.1.0 wrote (Pulumi's serialization of its handle), as the upgrade fixture recorded it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { providerText } from "../../provider/handle";
import type { ResourceKind } from "../../provider/kinds";

export const providerTextOf = (kind: ResourceKind): string => providerText(kind);

/** `__provider` of the first resource of `kind` in the state 0.1.0 left (test/e2e/fixtures/upgrade). */
export function legacyProviderText(kind: ResourceKind): string {
  const state = JSON.parse(readFileSync(join(__dirname, "..", "e2e", "fixtures", "upgrade", "deployment.json"), "utf8")) as {
    deployment: { resources: { type: string; outputs?: { __provider?: string } }[] };
  };
  const text = state.deployment.resources.find((r) => r.type === `pulumi-nodejs:dynamic/sandbox:${kind}`)?.outputs?.__provider;
  if (typeof text !== "string") throw new Error(`the upgrade fixture holds no ${kind} with a __provider text`);
  return text;
}
