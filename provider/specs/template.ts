/**
 * Template: a sandbox template built from a Dockerfile.
 *   create  POST /templates (Bearer access token), wait for the build through
 *           GET /templates/{id}/builds/{buildID}/status (log offsets), then PATCH /v2/templates/{id}
 *           when `public` is asked for
 *   read    GET /templates/{id}                   (404: gone; `public` changed elsewhere is drift)
 *   update  `public` alone: one PATCH /v2/templates/{id}, never a rebuild;
 *           dockerfile, alias, startCmd, readyCmd, cpuCount, memoryMB: POST /templates/{id} (rebuild,
 *           Bearer), wait again; the template keeps its ID
 *   delete  DELETE /templates/{id}                (refused while sandboxes use it; 404: already gone)
 * Replacement: `teamID`.
 */
import { z } from "zod";
import { defineSpec } from "../spec";
import { autoName } from "./naming";

const ALIAS = /^[a-z0-9_-]+$/;

export const TemplateInputs = z.strictObject({
  dockerfile: z
    .string({ error: "must be a string holding the Dockerfile's text" })
    .refine((text) => /^\s*FROM\s+\S/im.test(text), { error: "must contain a FROM instruction (the base image)" })
    .describe("The Dockerfile's text. Required. A change rebuilds the template in place (same templateID)."),
  alias: z
    .string({ error: "must be a string" })
    .max(128, { error: "must be at most 128 characters" })
    .regex(ALIAS, { error: "may contain only lowercase letters, digits, '_' and '-' (pattern ^[a-z0-9_-]+$)" })
    .optional()
    .describe("Alias sandboxes can be created from. Default: the resource name plus a stable suffix. A change rebuilds."),
  teamID: z.string({ error: "must be a string" }).min(1, { error: "must not be empty" }).optional()
    .describe("Team that owns the template. Default: the API key's team. Changing it replaces the template."),
  startCmd: z.string({ error: "must be a string" }).optional()
    .describe("Command started when a sandbox boots from the template. A change rebuilds."),
  readyCmd: z.string({ error: "must be a string" }).optional()
    .describe("Command that must succeed before the sandbox counts as ready. A change rebuilds."),
  cpuCount: z.number({ error: "must be a number" }).int({ error: "must be a whole number" })
    .min(1, { error: "must be at least 1" }).max(32, { error: "must be at most 32" })
    .refine((n) => n === 1 || n % 2 === 0, { error: "must be 1 or an even number" }).optional()
    .describe("CPU cores of sandboxes from this template (1 or even, up to 32). Service default 2. A change rebuilds."),
  memoryMB: z.number({ error: "must be a number" }).int({ error: "must be a whole number" })
    .min(128, { error: "must be at least 128 (MiB)" })
    .refine((n) => n % 2 === 0, { error: "must be an even number of MiB" }).optional()
    .describe("Memory of sandboxes from this template, in MiB (>= 128, even). Service default 1024. A change rebuilds."),
  public: z.boolean({ error: "must be true or false" }).default(false)
    .describe("Whether other teams may use the template. Changed in place (one PATCH), never by a rebuild."),
  buildTimeoutSeconds: z.number({ error: "must be a number" }).int({ error: "must be a whole number" })
    .min(1, { error: "must be at least 1 second" }).max(86_400, { error: "must be at most 86400 (24 hours)" }).default(1200)
    .describe("How long create and update wait for a build before failing, in seconds. Default 1200. Changes nothing remotely."),
});

export const TemplateOutputs = z.object({
  templateID: z.string().describe("The template's ID."),
  alias: z.string().describe("The template's alias: the one given, else the auto-name."),
  buildID: z.string().describe("The last successful build."),
  buildStatus: z.string().describe("Status of the latest build: waiting, building, ready or error."),
  latestBuildID: z.string().describe("The latest build, which may still be running or may have failed."),
  public: z.boolean().describe("Whether other teams may use the template, as the service reports it."),
  cpuCount: z.number().describe("CPU cores of the last successful build."),
  memoryMB: z.number().describe("Memory of the last successful build, in MiB."),
  aliases: z.array(z.string()).describe("Aliases of the template."),
  names: z.array(z.string()).describe("Names in `namespace/alias` form."),
  envdVersion: z.string().describe("Version of the in-sandbox server the build carries."),
  diskSizeMB: z.number().describe("Disk size of sandboxes from this template, in MiB."),
  createdAt: z.string().describe("When the template was created (RFC 3339)."),
  updatedAt: z.string().describe("When the template last changed (RFC 3339)."),
  buildCount: z.number().describe("How many builds the template has had."),
  spawnCount: z.number().describe("How many sandboxes were created from it."),
  lastBuildError: z.string().optional().describe("Why the latest build failed, with its last log lines; absent when it succeeded."),
});

export const templateSpec = defineSpec({
  kind: "Template",
  description:
    "A sandbox template built from a Dockerfile. Creating and rebuilding use the v1 build endpoints, which " +
    "need an access token (`sandbox:accessToken`) as well as the API key. The build's log lines are shown " +
    "as they come; a failed build is recorded and rebuilt by the next `pulumi up`.",
  inputs: TemplateInputs,
  outputs: TemplateOutputs,
  // A rebuild keeps the template's ID: for the engine it is an update like the `public` PATCH.
  inPlace: ["dockerfile", "alias", "startCmd", "readyCmd", "cpuCount", "memoryMB", "public"],
  localOnly: ["buildTimeoutSeconds"],
  uniqueNames: ["alias"],
  computed: ["cpuCount", "memoryMB"],
  secretInputs: [],
  secretOutputs: [],
  // The v1 build endpoints take only a Bearer access token, besides the API key of every other call.
  credentials: ["apiKey", "accessToken"],
  autoName: (key, generation) => ({ alias: autoName(key, generation) }),
});

/** Inputs whose change needs a rebuild (everything remote but `public` and `teamID`). */
export const REBUILD_INPUTS = ["dockerfile", "alias", "startCmd", "readyCmd", "cpuCount", "memoryMB"] as const;
