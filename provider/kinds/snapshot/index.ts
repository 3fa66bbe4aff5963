/** The Snapshot kind: a snapshot of a running sandbox, deleted with the resource (./spec.ts has the map of calls). */
import { defineKind, type KindDefinition } from "../kind";
import { snapshotSpec } from "./spec";

export const snapshotKind: KindDefinition<typeof snapshotSpec> = defineKind({
  spec: snapshotSpec,
  handlers: async () => (await import("./snapshot.js")).snapshotHandlers,
});
