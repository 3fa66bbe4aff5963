/** The Volume kind: a persistent team volume, optionally seeded with files (./spec.ts has the map of calls). */
import { defineKind, type KindDefinition } from "../kind";
import { deriveContentManifest } from "./derive";
import { volumeMigrations } from "./migrations";
import { volumeSpec } from "./spec";

export const volumeKind: KindDefinition<typeof volumeSpec> = defineKind({
  spec: volumeSpec,
  handlers: async () => (await import("./volume.js")).volumeHandlers,
  derive: deriveContentManifest,
  migrations: volumeMigrations,
  claims: async () => (await import("./claim.js")).volumeClaims,
});
