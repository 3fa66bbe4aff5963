/**
 * Each kind's spec, by kind: the names and shapes the whole provider reads. Apart from the registry
 * of definitions (./index.ts), because the runtime's helpers that the kinds' handlers use (their types,
 * the logger, the secret rules: ../runtime/handlers.ts, log.ts, secrets.ts) read specs by kind name,
 * and the registry reaches those handlers: reading the specs from there would close an import circle.
 * A spec imports nothing of the runtime. The order is the order of the README reference.
 */
import { lifecycleWebhookSpec } from "./lifecycle-webhook/spec";
import { sandboxFleetSpec } from "./sandbox-fleet/spec";
import { sandboxSpec } from "./sandbox/spec";
import { secretSpec } from "./secret/spec";
import { snapshotSpec } from "./snapshot/spec";
import { templateTagSpec } from "./template-tag/spec";
import { templateSpec } from "./template/spec";
import { volumeSpec } from "./volume/spec";

export const SPECS = {
  Template: templateSpec,
  Volume: volumeSpec,
  Sandbox: sandboxSpec,
  SandboxFleet: sandboxFleetSpec,
  TemplateTag: templateTagSpec,
  Snapshot: snapshotSpec,
  Secret: secretSpec,
  LifecycleWebhook: lifecycleWebhookSpec,
} as const;

/** The name of a kind: its class, its type tokens, its key in every table. */
export type ResourceKind = keyof typeof SPECS;

/** Every kind, in the order of the README reference. */
export const KINDS = Object.keys(SPECS) as ResourceKind[];

/** The name each kind's spec gives it. The constant below exists for the compiler: it refuses a kind listed under another name. */
type SpecNames = { [K in ResourceKind]: (typeof SPECS)[K]["kind"] };
const LISTED_UNDER_OWN_NAME: { readonly [K in ResourceKind]: K } = Object.fromEntries(KINDS.map((k) => [k, SPECS[k].kind])) as SpecNames;
