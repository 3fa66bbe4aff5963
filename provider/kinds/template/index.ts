/** The Template kind: a sandbox template built from a Dockerfile (./spec.ts has the map of calls). */
import { defineKind, type KindDefinition } from "../kind";
import { deriveTemplateSteps } from "./derive";
import { templateMigrations } from "./migrations";
import { templateSpec } from "./spec";

export const templateKind: KindDefinition<typeof templateSpec> = defineKind({
  spec: templateSpec,
  handlers: async () => (await import("./template.js")).templateHandlers,
  derive: deriveTemplateSteps,
  migrations: templateMigrations,
  claims: async () => (await import("./claim.js")).templateClaims,
  // A template's Dockerfile cannot be read back from the service (provider/plugin/README.md, import).
  notReadBack: ["dockerfile"],
});
