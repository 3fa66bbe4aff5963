/** The Sandbox kind: a sandbox from a template, optionally provisioned (./spec.ts has the map of calls). */
import { defineKind, type KindDefinition } from "../kind";
import { sandboxAsWritten } from "./import";
import { sandboxSpec } from "./spec";

export const sandboxKind: KindDefinition<typeof sandboxSpec> = defineKind({
  spec: sandboxSpec,
  handlers: async () => (await import("./sandbox.js")).sandboxHandlers,
  howGone: "it reached its timeout, or was killed outside Pulumi",
  importCorrections: sandboxAsWritten,
  // `state` is the service's report; the input of the same name is a wish to keep it running or
  // paused, which a sandbox made outside Pulumi never expressed.
  notImported: ["state"],
});
