/** The Snapshot kind: a snapshot of a running sandbox, deleted with the resource (./spec.ts has the map of calls). */
import { defineKind, type KindDefinition } from "../kind";
import { snapshotSpec } from "./spec";

export const snapshotKind: KindDefinition<typeof snapshotSpec> = defineKind({
  spec: snapshotSpec,
  handlers: async () => (await import("./snapshot.js")).snapshotHandlers,
  // The service's listing does not say which sandbox a snapshot was taken of: an import cannot read it
  // back, and the program's value stands until a replacement (docs/service.md#sandbox-snapshots).
  notReadBack: ["sandboxID"],
});
