/**
 * The one registry of resource kinds: each kind is a folder (its spec, handlers, derivations,
 * migrations and docs), its spec listed in ./specs.ts and its definition here; the compiler refuses
 * one without the other. The kind names, the type tokens both front ends serve, the classes
 * (generated: scripts/gen-class-shapes.mjs), schema.json and the runtime's tables all come from these
 * lists. Their order is the order of the README reference.
 */
import type { ResourceSpec } from "../spec";
import type { KindDefinition } from "./kind";
import { lifecycleWebhookKind } from "./lifecycle-webhook";
import { sandboxKind } from "./sandbox";
import { sandboxFleetKind } from "./sandbox-fleet";
import { secretKind } from "./secret";
import { snapshotKind } from "./snapshot";
import { SPECS, type ResourceKind } from "./specs";
import { templateKind } from "./template";
import { templateTagKind } from "./template-tag";
import { volumeKind } from "./volume";

export { KINDS, SPECS, type ResourceKind } from "./specs";

/** Each kind's definition, over the very spec ./specs.ts lists for it. */
export const DEFINITIONS: { readonly [K in ResourceKind]: KindDefinition<(typeof SPECS)[K]> } = {
  Template: templateKind,
  Volume: volumeKind,
  Sandbox: sandboxKind,
  SandboxFleet: sandboxFleetKind,
  TemplateTag: templateTagKind,
  Snapshot: snapshotKind,
  Secret: secretKind,
  LifecycleWebhook: lifecycleWebhookKind,
};

/** A kind's definition, untyped: what the generic runtime reads. */
export const definitionOf = (kind: ResourceKind): KindDefinition<ResourceSpec> => DEFINITIONS[kind] as unknown as KindDefinition<ResourceSpec>;
