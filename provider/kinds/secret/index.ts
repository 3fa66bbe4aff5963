/** The Secret kind: a team secret whose value is written and never read back (./spec.ts has the map of calls). */
import { defineKind, type KindDefinition } from "../kind";
import { secretSpec } from "./spec";

export const secretKind: KindDefinition<typeof secretSpec> = defineKind({
  spec: secretSpec,
  handlers: async () => (await import("./secret.js")).secretHandlers,
  // The service never answers a value: an imported secret has none until the program's is written.
  notReadBack: ["value"],
});
