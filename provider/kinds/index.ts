/**
 * The one registry of resource kinds: each kind is a folder (its spec, handlers, derivations,
 * migrations and docs) and one line here. The kind names, the type tokens both front ends serve, the
 * classes (generated: scripts/gen-class-shapes.mjs), schema.json and the runtime's tables all come
 * from this list. Its order is the order of the README reference.
 */
import type { ResourceSpec } from "../spec";
import type { KindDefinition } from "./kind";
import { sandboxKind } from "./sandbox";
import { sandboxFleetKind } from "./sandbox-fleet";
import { secretKind } from "./secret";
import { snapshotKind } from "./snapshot";
import { templateKind } from "./template";
import { templateTagKind } from "./template-tag";
import { volumeKind } from "./volume";

export const DEFINITIONS = {
  Template: templateKind,
  Volume: volumeKind,
  Sandbox: sandboxKind,
  SandboxFleet: sandboxFleetKind,
  TemplateTag: templateTagKind,
  Snapshot: snapshotKind,
  Secret: secretKind,
} as const;

/** The name of a kind: its class, its type tokens, its key in every table. */
export type ResourceKind = keyof typeof DEFINITIONS;

/** Every kind, in the order of the README reference. */
export const KINDS = Object.keys(DEFINITIONS) as ResourceKind[];

/** The name each kind's spec gives it. The constant below exists for the compiler: it refuses a kind listed under another name. */
type SpecNames = { [K in ResourceKind]: (typeof DEFINITIONS)[K]["spec"]["kind"] };
const LISTED_UNDER_OWN_NAME: { readonly [K in ResourceKind]: K } = Object.fromEntries(KINDS.map((k) => [k, DEFINITIONS[k].spec.kind])) as SpecNames;

/** Each kind's spec, by kind. */
export const SPECS = Object.fromEntries(KINDS.map((kind) => [kind, DEFINITIONS[kind].spec])) as {
  [K in ResourceKind]: (typeof DEFINITIONS)[K]["spec"];
};

/** A kind's definition, untyped: what the generic runtime reads. */
export const definitionOf = (kind: ResourceKind): KindDefinition<ResourceSpec> => DEFINITIONS[kind] as unknown as KindDefinition<ResourceSpec>;
