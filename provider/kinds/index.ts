/**
 * The one registry of resource kinds. The runtime, the classes, the schema builder and the tests read
 * it; adding a resource is a spec file, its handlers and one line here (CONTRIBUTING.md). `satisfies`
 * makes the compiler refuse a kind of `ResourceKind` that has no spec here.
 */
import type { ResourceKind, ResourceSpec } from "../spec";
import { sandboxSpec } from "./sandbox/spec";
import { templateSpec } from "./template/spec";
import { templateTagSpec } from "./template-tag/spec";
import { volumeSpec } from "./volume/spec";

export const SPECS = { Template: templateSpec, Volume: volumeSpec, Sandbox: sandboxSpec, TemplateTag: templateTagSpec } as const satisfies Record<ResourceKind, ResourceSpec>;

/** Every kind, in the order schema.json and the README reference list them. */
export const KINDS = Object.keys(SPECS) as ResourceKind[];
