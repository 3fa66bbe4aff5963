/**
 * Volume: a team volume that sandboxes mount by name.
 *   create  POST /volumes                 (an unknown outcome is resolved by listing volumes by name)
 *   read    GET /volumes/{id}             (404: gone; the token it re-mints each time is not drift)
 *   update  none: the service cannot change a volume
 *   delete  DELETE /volumes/{id}          (404: already gone)
 * Replacement: `name`. Replacing a volume LOSES ITS DATA.
 */
import { z } from "zod";
import { defineSpec } from "../spec";
import { autoName } from "./naming";

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
});

export const VolumeOutputs = z.object({
  volumeID: z.string().describe("The volume's ID (a UUID)."),
  volumeId: z.string().describe("Deprecated: the same as `volumeID`, named like `sandboxID` and `templateID` since 0.2; removed in 0.3."),
  name: z.string().describe("The volume's name."),
  token: z.string().describe("Token for the volume's content API. Secret."),
});

export const volumeSpec = defineSpec({
  kind: "Volume",
  description:
    "A persistent team volume, mounted into sandboxes by name. The service cannot update a volume: a new " +
    "`name` replaces it, and **replacing or deleting a volume loses its data**. Guard volumes that hold " +
    "data with the `protect` or `retainOnDelete` resource options.",
  inputs: VolumeInputs,
  outputs: VolumeOutputs,
  inPlace: [],
  localOnly: [],
  uniqueNames: ["name"],
  secretInputs: [],
  secretOutputs: ["token"],
  credentials: ["apiKey"],
  autoName: (key, generation) => ({ name: autoName(key, generation) }),
});
