/** The Secret kind: a team secret whose value is written and never read back (./spec.ts has the map of calls). */
import { defineKind, type KindDefinition } from "../kind";
import { secretSpec } from "./spec";

export const secretKind: KindDefinition<typeof secretSpec> = defineKind({
  spec: secretSpec,
  handlers: async () => (await import("./secret.js")).secretHandlers,
  claims: async () => (await import("./claim.js")).secretClaims,
  // The service never answers a value, and an imported secret's is unknown: unlike a Template's
  // Dockerfile (not `notReadBack` here), the program's value is written on the first up that declares
  // it, one update in place, so the service holds what the program says.
});
