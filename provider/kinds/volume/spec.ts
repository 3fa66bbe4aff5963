/**
 * Volume: a team volume that sandboxes mount by name, optionally seeded with the files of a local directory
 * or a Pulumi archive (./source.ts; the manifest of its files is derived by `check`: ./derive.ts).
 *   create  POST /volumes                 (an unknown outcome is resolved by listing volumes by name),
 *           then the seed through the content API (mkdir, PUT file per file)
 *   read    GET /volumes/{id}             (404: gone; the token it re-mints each time is not drift);
 *           with a seed, one GET .../dir listing: seeded files changed or removed since are `contentDrift`
 *   update  `content` alone, in place (same volumeID): upload the files that are new or changed, DELETE
 *           the ones the seed dropped, PATCH the mode of the ones only chmod-ed; nothing else is touched
 *   delete  DELETE /volumes/{id}          (404: already gone)
 * Replacement: `name`. Replacing a volume LOSES ITS DATA.
 *
 * The seed rule: the provider writes and deletes only paths of its manifest (`content.files`, computed
 * by `check` from the directory or archive). A seeded file is overwritten or deleted only when the seed's own copy
 * changes or is dropped; a path the seed has never written is never overwritten (an upload there fails,
 * naming it, unless the file holds the seed's exact bytes: a lost answer, recorded as seeded); anything
 * sandboxes wrote elsewhere is never read, changed or deleted.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { MAX_SEED_BYTES, MAX_SEED_FILE_BYTES, MAX_SEED_FILES, targetProblem } from "./content-seed";
import { isArchive } from "./source";
import { defineSpec } from "../../spec";
import { autoName } from "../naming";

const SeedFile = z.object({
  sha256: z.string().describe("Hex SHA-256 of the file's content."),
  mode: z.number().describe("Permission bits (420 = 0o644)."),
  size: z.number().describe("Size in bytes."),
});

/** An archive, as a program gives it (a pulumi.asset.Archive) and as the provider receives it (its wire form). */
const Archive = z
  .unknown()
  .refine(isArchive, { error: "must be a Pulumi archive (pulumi.asset.FileArchive of a directory, or pulumi.asset.AssetArchive)" }) as unknown as z.ZodType<pulumi.asset.Archive, pulumi.asset.Archive>;

/**
 * `content` as written. Its manifest (`files`) is derived by `check` (./derive.ts), which reads the
 * directory or archive at preview too, so the diff names each file added, changed or removed; the
 * rules here need no file.
 */
const ContentInput = z
  .strictObject({
    path: z
      .string({ error: "must be a string: a local directory" })
      .min(1, { error: "must not be empty" })
      .optional()
      .describe(
        "Local directory whose files seed the volume, relative to the Pulumi project directory (or absolute). " +
          "Regular files and directories only (no symlinks); empty directories are not copied. Give this or `archive`.",
      ),
    archive: Archive.optional().describe(
      "A Pulumi archive whose files seed the volume, instead of `path`: a `FileArchive` of a directory, or an " +
        "`AssetArchive` of `FileAsset`s, `StringAsset`s and `FileArchive`s of directories (its keys are the paths). " +
        "Remote archives and assets, and archives of .zip/.tar files, are not supported.",
    ),
    target: z
      .string({ error: "must be a string" })
      .default("/")
      .describe(
        "Directory of the volume the files go to, e.g. `/config`. Default: the volume's root. A seed holds at most " +
          `${MAX_SEED_FILES} files, ${MAX_SEED_FILE_BYTES / 1024 / 1024} MiB per file, ${MAX_SEED_BYTES / 1024 / 1024} MiB in all.`,
      ),
  })
  .superRefine((content, ctx) => {
    if ((content.path === undefined) === (content.archive === undefined)) {
      const message = "give either path (a local directory) or archive (a Pulumi archive), not both and not neither";
      ctx.addIssue({ code: "custom", path: [content.path === undefined ? "path" : "archive"], message, input: undefined });
      return;
    }
    const bad = targetProblem(content.target);
    if (bad) ctx.addIssue({ code: "custom", path: ["target"], message: bad, input: content.target });
  });

/** `content` as `check` leaves it: as written, with the manifest of the seed's files (./derive.ts). */
export const CheckedContent = z.object({ path: z.string().optional(), archive: Archive.optional(), target: z.string(), files: z.record(z.string(), SeedFile) });

export const VOLUME_NAME = /^[a-zA-Z0-9_-]+$/;

export const VolumeInputs = z.strictObject({
  name: z
    .string({ error: "must be a string" })
    .min(1, { error: "must not be empty" })
    .max(128, { error: "must be at most 128 characters" })
    .regex(VOLUME_NAME, { error: "may contain only letters, digits, '_' and '-' (pattern ^[a-zA-Z0-9_-]+$)" })
    .optional()
    .describe(
      "Name of the volume, unique in the team; sandboxes mount it by this name. Default: the resource name " +
        "plus a stable suffix. Changing it replaces the volume, and a replaced volume loses its data.",
    ),
  content: ContentInput.optional().describe(
    "Seeds the volume with the files of a local directory or a Pulumi archive, through the volume content API. A change is " +
      "an update in place (same volumeID) that uploads only the files added or changed, and deletes the " +
      "files dropped from the directory; the preview names each. Files sandboxes wrote are left alone. " +
      "State keeps a manifest (path, SHA-256, mode, size) of what the provider wrote, never the contents.",
  ),
});

export const VolumeOutputs = z.object({
  volumeID: z.string().describe("The volume's ID (a UUID)."),
  volumeId: z.string().describe("Deprecated: the same as `volumeID`, named like `sandboxID` and `templateID` since 0.2; removed in 0.3."),
  name: z.string().describe("The volume's name."),
  token: z.string().describe("Token for the volume's content API. Secret."),
  contentWritten: z
    .record(z.string(), z.string())
    .describe("When the provider last wrote each seeded file, by volume path: the file's mtime as the volume reported it."),
  contentDrift: z
    .record(z.string(), z.enum(["changed", "removed"]))
    .describe(
      "Seeded files that `pulumi refresh` found changed or removed on the volume since the provider wrote them. " +
        "They are left as they are until the seed's own copy changes (then it is uploaded again) or is dropped (then it is deleted).",
    ),
});

export const volumeSpec = defineSpec({
  kind: "Volume",
  description:
    "A persistent team volume, mounted into sandboxes by name, optionally seeded from a local directory " +
    "(`content`). The service cannot rename a volume: a new `name` replaces it, and **replacing or deleting a " +
    "volume loses its data**. Guard volumes that hold data with the `protect` or `retainOnDelete` resource options.",
  inputs: VolumeInputs,
  outputs: VolumeOutputs,
  checked: z.object({ content: CheckedContent.optional() }),
  // Seeding goes through the content API: the same volume, other files.
  inPlace: ["content"],
  localOnly: [],
  uniqueNames: ["name"],
  secretInputs: [],
  secretOutputs: ["token"],
  idOutputs: ["volumeID", "volumeId"],
  // Keyed by the volume paths the seed wrote (`content.target` and the seed's own paths).
  secretFrom: { contentWritten: ["content"], contentDrift: ["content"] },
  credentials: ["apiKey"],
  autoName: (key, generation) => ({ name: autoName(key, generation) }),
});
