/**
 * Snapshot: the files and memory of a running sandbox at one moment, kept by the service as a
 * template of its own kind that sandboxes start from (docs/service.md#sandbox-snapshots).
 *   create  POST /sandboxes/{sandboxID}/snapshots {name?, memory?}   (the sandbox pauses briefly and resumes;
 *           `mode: filesystem` sends `memory: false`)
 *   read    GET /snapshots?name=<snapshotID>                 (listed nowhere: gone)
 *   update  none: every input replaces the snapshot
 *   delete  DELETE /templates/{snapshotID}                   (404: already gone)
 * Replacement: every input. An unnamed snapshot is made before the old one is deleted; a replacement
 * keeping a chosen `name` deletes the old one first, since the service would add the new snapshot as
 * a build of the old one's template, which deleting the old one would then remove.
 *
 * A snapshot never expires: the resource exists so that a stack deletes the ones it made.
 *
 * Left unnamed by the program, a snapshot is named by the create (./auto-name.ts), `<resource name>-<8 hex
 * of its key and generation>-<8 hex of what it is made from>`, so that a re-run of a killed `up` finds
 * what the killed run took and adopts it, never leaving one that no state records. Only creates name:
 * `name` stays unset in the state, and a snapshot taken before this keeps no name (nothing replaces it).
 */
import { z } from "zod";
import { defineSpec } from "../../spec";

/** The service's name rule (id.ParseName): `[namespace/]alias[:tag]`; lower case here, since the service lower-cases it. */
const NAME = /^([a-z0-9_-]+\/)?[a-z0-9_-]+(:[a-z0-9_.-]+)?$/;

export const SnapshotInputs = z.strictObject({
  sandboxID: z.string({ error: "must be a string: the ID of a running sandbox (a Sandbox's `sandboxID` output)" })
    .min(1, { error: "must not be empty" })
    .describe("The running sandbox to snapshot (a Sandbox's `sandboxID`). It is paused for a moment and resumed under the same ID. A change takes a new snapshot."),
  name: z.string({ error: "must be a string" })
    .max(128, { error: "must be at most 128 characters" })
    .regex(NAME, { error: "must be `[namespace/]alias[:tag]`: lowercase letters, digits, '_' and '-' (and '.' in the tag), the namespace being the team's" })
    .optional()
    .describe("A name for the snapshot (`alias` or `alias:tag`), which sandboxes can start from instead of its ID. Default: `<resource name>-<8 hex digits>-<8 hex digits>`, derived from the resource (its key and replacement generation) and from what the snapshot is made from (its other inputs), so that a re-run of an interrupted `up` finds the snapshot it took and adopts it (a snapshot taken by a version before this one keeps no name). A change takes a new snapshot."),
  mode: z.enum(["full", "filesystem"], { error: 'must be "full" or "filesystem"' }).optional()
    .describe("What the snapshot keeps: `full` (the service's default) keeps memory and files; `filesystem` keeps only the files (sent as `memory: false`): smaller and faster to take, and sandboxes started from it boot cold, without the sandbox's processes. A change takes a new snapshot."),
  triggers: z.record(z.string(), z.string({ error: "must be a string" }), { error: "must be a map of strings" }).optional()
    .describe("Any values; a change of one takes a new snapshot of the same sandbox (e.g. after its provisioning changed its files). Default: none."),
});

export const SnapshotOutputs = z.object({
  snapshotID: z.string().describe("The snapshot's ID (`<template ID>:<tag>`, or `<team>/<alias>:<tag>` when named): a Sandbox's `templateID` starts from it."),
  names: z.array(z.string()).describe("The snapshot's names: `<team>/<alias>` (its `name`, or the one given when `name` is left out), or none for a snapshot taken unnamed by a version before that."),
});

export const snapshotSpec = defineSpec({
  kind: "Snapshot",
  description:
    "A snapshot of a running sandbox: its files and memory at the moment it is taken. A Sandbox whose `templateID` " +
    "is the snapshot's `snapshotID` starts from it, with those files. The service keeps a snapshot until it is " +
    "deleted: deleting the resource (or destroying the stack) deletes it, and a replaced snapshot is deleted once " +
    "its successor exists (first, when it keeps a chosen `name`). The service refuses to delete a snapshot while " +
    "sandboxes started from it run. Without a `name`, it is named after the resource, so that a re-run of an " +
    "interrupted `up` adopts the snapshot the interrupted run took instead of taking a second one.",
  inputs: SnapshotInputs,
  outputs: SnapshotOutputs,
  inPlace: [],
  localOnly: [],
  uniqueNames: ["name"],
  secretInputs: [],
  secretOutputs: [],
  // The ID is the name when there is one.
  idFrom: ["name"],
  idOutputs: ["snapshotID"],
  credentials: ["apiKey"],
});
