/**
 * Wire schemas of sandbox snapshots (POST /sandboxes/{id}/snapshots, GET /snapshots), in the API's
 * casing (docs/service.md#sandbox-snapshots).
 */
import { z } from "zod";

/**
 * Body of POST /sandboxes/{id}/snapshots: the body is required, `name` is not (`[namespace/]alias[:tag]`).
 * `memory` false takes the files only: sandboxes started from it boot cold (the newest SDKs':
 * docs/service.md#sandbox-fields-of-the-newest-sdks).
 */
export const NewSnapshot = z.object({ name: z.string().optional(), memory: z.boolean().optional() });
export type NewSnapshot = z.infer<typeof NewSnapshot>;

/**
 * A snapshot, as created (201) and listed: `snapshotID` is `<template ID>:<tag>` unnamed, or
 * `<team slug>/<alias>:<tag>` named; `names` is `[]` or `["<team slug>/<alias>"]`.
 */
export const SnapshotInfo = z.object({ snapshotID: z.string(), names: z.array(z.string()) });
export type SnapshotInfo = z.infer<typeof SnapshotInfo>;
