/**
 * The SandboxFleet kind: many sandboxes of one shape as one resource, each member a Sandbox to the
 * Sandbox kind's handlers (./spec.ts has the map of calls). Its check and diff are its own: a member's
 * inputs are checked by the Sandbox's rules (./check.ts), and its diff names each member that changes
 * (./plan.ts).
 */
import { defineKind, type KindDefinition } from "../kind";
import { checkFleet } from "./check";
import { diffFleet } from "./plan";
import { sandboxFleetSpec } from "./spec";

export const sandboxFleetKind: KindDefinition<typeof sandboxFleetSpec> = defineKind({
  spec: sandboxFleetSpec,
  handlers: async () => (await import("./fleet.js")).sandboxFleetHandlers,
  check: checkFleet,
  diff: diffFleet,
});
