/**
 * Template: a sandbox template built from a Dockerfile, through the service's current build system
 * (`buildSystem: "v2"`, the default; API key only) or the legacy one (`"v1"`, access token).
 *   create  v2: POST /v3/templates (the build, by name), GET /templates/{id}/files/{hash} and a PUT of
 *           each COPY step's archive the service lacks, POST /v2/templates/{id}/builds/{buildID} with
 *           the steps; v1: POST /templates with the Dockerfile text (Bearer). Each build is recorded as
 *           made from its inputs: one more GET .../files/{hash} and PUT, of an empty archive under a hash
 *           of the build and its inputs (provider/kinds/template/record.ts). Then wait for the build
 *           through GET /templates/{id}/builds/{buildID}/status (log offsets), then PATCH
 *           /v2/templates/{id} when `public` is asked for
 *   read    GET /templates/{id}                   (404: gone; `public` changed elsewhere is drift)
 *   update  `public` alone: one PATCH /v2/templates/{id}, never a rebuild; `tags` alone: the tag
 *           calls, never a rebuild; a change of the steps (`buildSteps`: the Dockerfile and the files
 *           its COPY steps read), startCmd, readyCmd, cpuCount, memoryMB, or `force` set to true:
 *           a rebuild (v2: a new build under the same name; v1: POST /templates/{id}); the template
 *           keeps its ID
 *   delete  DELETE /templates/{id}                (refused while sandboxes use it; 404: already gone)
 * Replacement: `teamID`, `alias` (the current build system knows a template by its name).
 */
import { z } from "zod";
import { defineSpec } from "../../spec";
import { autoName } from "../naming";

const ALIAS = /^[a-z0-9_-]+$/;
/** The service's tag rule (lowercase letters, digits, '-', '_', '.'); `default` is every build's own. */
const TAG = /^[a-z0-9._-]+$/;
export const BUILD_SYSTEMS = ["v2", "v1"] as const;
export type BuildSystem = (typeof BUILD_SYSTEMS)[number];

export const TemplateInputs = z.strictObject({
  dockerfile: z
    .string({ error: "must be a string holding the Dockerfile's text" })
    .refine((text) => /^\s*FROM\s+\S/im.test(text), { error: "must contain a FROM instruction (the base image)" })
    .describe(
      "The Dockerfile's text. Required. With the v2 build system it is turned into build steps at preview (see `buildSteps`): " +
        "a change of the steps rebuilds the template in place (same templateID); an edit that leaves the steps as they were " +
        "(a comment, spacing) rebuilds nothing. A line the service cannot build fails preview, naming the line.",
    ),
  context: z.string({ error: "must be a string: the path of the build context directory" }).min(1, { error: "must not be empty" }).optional()
    .describe(
      "Directory the Dockerfile's COPY/ADD sources are read from (its `.dockerignore` applies), relative to the Pulumi " +
        "project's directory or absolute. Default: none, and a Dockerfile with a COPY then fails preview. Only the files' " +
        "contents count (each COPY step's files hash, shown in `buildSteps`): moving the directory changes nothing. v2 only.",
    ),
  buildSystem: z.enum(BUILD_SYSTEMS, { error: 'must be "v2" (the service\'s current build system) or "v1" (the legacy one)' }).default("v2")
    .describe(
      'Which build system builds the template: `"v2"` (default), the service\'s current one, needs only the API key and ' +
        'uploads the context; `"v1"`, the legacy endpoints that take the Dockerfile text, needs the access token ' +
        "(`sandbox:accessToken`) and takes no context, tags or force. Changing it rebuilds nothing by itself.",
    ),
  tags: z.array(
    z.string({ error: "must be a string" }).max(128, { error: "must be at most 128 characters" })
      .regex(TAG, { error: "may contain only lowercase letters, digits, '.', '_' and '-'" })
      .refine((t) => t !== "default", { error: "`default` is every build's own tag; list only the others" }),
    { error: "must be a list of tag names" },
  ).optional()
    .describe("Tags the template's builds get besides `default` (sandboxes can name `alias:tag`). A change alone moves the tags to the current build and removes the dropped ones, never rebuilds; with a rebuild, the new build gets the tags and a dropped tag keeps naming its build (for a `TemplateTag` to roll back to). v2 only."),
  // No zod default: state written before this input existed has none, and an absent `force` is false.
  force: z.boolean({ error: "must be true or false" }).optional()
    .describe("Build without the service's build cache (every step runs again). Default false. Setting it to true rebuilds once; while true, every rebuild skips the cache; setting it back rebuilds nothing. v2 only."),
  alias: z
    .string({ error: "must be a string" })
    .max(128, { error: "must be at most 128 characters" })
    .regex(ALIAS, { error: "may contain only lowercase letters, digits, '_' and '-' (pattern ^[a-z0-9_-]+$)" })
    .optional()
    .describe("Alias sandboxes can be created from. Default: the resource name plus a stable suffix. A change replaces the template (the current build system knows a template by its name)."),
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
  buildSteps: z.array(z.string()).optional().describe(
    "What the Dockerfile builds, one line per step as the service gets it (`FROM`, then each step; a COPY step ends with " +
      "the hash of its files), computed at preview. `pulumi preview --diff` shows a changed context file as a change of " +
      "its COPY step here. Absent when the Dockerfile is not known at preview, or with buildSystem v1 where it does not convert.",
  ),
});

export const templateSpec = defineSpec({
  kind: "Template",
  description:
    "A sandbox template built from a Dockerfile and a local build context. By default it builds through the " +
    "service's current build system with the API key alone: the Dockerfile becomes build steps at preview, and " +
    "only the COPY files the service lacks are uploaded. `buildSystem: \"v1\"` uses the legacy endpoints, which " +
    "need an access token (`sandbox:accessToken`). The build's log lines are shown as they come; a failed build " +
    "is recorded and rebuilt by the next `pulumi up`.",
  inputs: TemplateInputs,
  outputs: TemplateOutputs,
  // A rebuild keeps the template's ID: for the engine it is an update like the `public` PATCH.
  inPlace: ["dockerfile", "startCmd", "readyCmd", "cpuCount", "memoryMB", "public", "tags", "force"],
  // `context` and `buildSystem` change nothing by themselves: what the context holds shows in `buildSteps`.
  localOnly: ["buildTimeoutSeconds", "context", "buildSystem"],
  derived: ["buildSteps"],
  idOutputs: ["templateID"],
  uniqueNames: ["alias"],
  computed: ["cpuCount", "memoryMB"],
  secretInputs: [],
  secretOutputs: [],
  // The steps quote the Dockerfile; a failed build's log lines may quote it, or the start and ready
  // commands; the service reports the alias back in `aliases` and `names`.
  secretFrom: {
    buildSteps: ["dockerfile", "context"],
    lastBuildError: ["dockerfile", "startCmd", "readyCmd"],
    aliases: ["alias"],
    names: ["alias"],
  },
  credentials: ["apiKey"],
  // The v1 build endpoints take only a Bearer access token, besides the API key of every other call.
  credentialsFor: (inputs) => (inputs.buildSystem === "v1" ? ["accessToken"] : []),
  crossChecks: (inputs) => {
    if (inputs.buildSystem !== "v1") return [];
    const v2Only = ["context", "tags", "force"].filter((k) => (k === "force" ? inputs.force === true : inputs[k] !== undefined));
    return v2Only.map((path) => ({ path, reason: 'needs the v2 build system (the v1 endpoints take only the Dockerfile text); remove it or drop buildSystem: "v1"' }));
  },
  autoName: (key, generation) => ({ alias: autoName(key, generation) }),
});

/** Inputs (derived ones included) whose change needs a rebuild, besides `force` set to true. */
export const REBUILD_INPUTS = ["buildSteps", "startCmd", "readyCmd", "cpuCount", "memoryMB"] as const;
