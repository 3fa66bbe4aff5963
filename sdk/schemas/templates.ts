/**
 * Wire schemas of the Templates area (POST /templates[/{id}], GET /templates[/{id}], build status,
 * PATCH /v2/templates/{id}), in the API's casing. Unknown extra fields are accepted and dropped.
 * Times are RFC 3339 strings, sizes MiB.
 */
import { z } from "zod";
import { LogLevel } from "./common";

/**
 * Status of a build. The service documents building|waiting|ready|error; `uploaded` (an internal
 * status some servers leak) means the build is usable, so it is read as `ready`.
 */
export const TemplateBuildStatus = z
  .enum(["building", "waiting", "ready", "error", "uploaded"])
  .transform((s): "building" | "waiting" | "ready" | "error" => (s === "uploaded" ? "ready" : s));
export type TemplateBuildStatus = z.infer<typeof TemplateBuildStatus>;

/** Body of the v1 create (POST /templates) and rebuild (POST /templates/{id}). */
export const TemplateBuildRequest = z.object({
  dockerfile: z.string(),
  alias: z.string().optional(),
  teamID: z.string().optional(),
  startCmd: z.string().optional(),
  readyCmd: z.string().optional(),
  /** Cores; service default 2, 1 or even, at most 32. */
  cpuCount: z.number().int().optional(),
  /** MiB; service default 1024, even, at least 128. */
  memoryMB: z.number().int().optional(),
});
export type TemplateBuildRequest = z.infer<typeof TemplateBuildRequest>;

/**
 * The 202 answer of a v1 create/rebuild. Real servers fill only these fields (the rest of the
 * declared record arrives zero-valued: `cpuCount: 0`, `createdAt: "0001-01-01T00:00:00Z"`,
 * `buildStatus: ""`), so nothing else is read. `buildID` is the build just started.
 */
export const TemplateBuildAccepted = z.object({
  templateID: z.string(),
  buildID: z.string(),
  aliases: z.array(z.string()).nullish().transform((v) => v ?? []),
  names: z.array(z.string()).nullish().transform((v) => v ?? []),
  public: z.boolean().optional().transform((v) => v ?? false),
});
export type TemplateBuildAccepted = z.infer<typeof TemplateBuildAccepted>;

/** Creator of a template; `email` is deprecated and may be null. */
export const TeamUser = z.object({ id: z.string(), email: z.string().nullish() });
export type TeamUser = z.infer<typeof TeamUser>;

/** One item of GET /templates. `buildID` is the last successful build. */
export const Template = z.object({
  templateID: z.string(),
  buildID: z.string(),
  cpuCount: z.number(),
  memoryMB: z.number(),
  diskSizeMB: z.number(),
  public: z.boolean(),
  /** Deprecated: bare aliases; see `names`. */
  aliases: z.array(z.string()),
  /** `namespace/alias` form. */
  names: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
  createdBy: TeamUser.nullable(),
  lastSpawnedAt: z.string().nullable(),
  spawnCount: z.number(),
  buildCount: z.number(),
  envdVersion: z.string(),
  buildStatus: TemplateBuildStatus,
});
export type Template = z.infer<typeof Template>;

/** One assignment of a tag to a build (GET /templates/{id}/tags/groups, e2b 2.63 on PyPI: template_tag_assignment.py); the service spells these IDs `...Id`. */
export const TemplateTagAssignment = z.object({
  assignmentId: z.string(),
  buildId: z.string(),
  assignedAt: z.string(),
  buildCreatedAt: z.string(),
  buildFinishedAt: z.string().nullable(),
});
export type TemplateTagAssignment = z.infer<typeof TemplateTagAssignment>;

/** A tag and its ready assignments, latest first (template_tag_group.py). */
export const TemplateTagGroup = z.object({
  tag: z.string(),
  assignments: z.array(TemplateTagAssignment),
  hasMore: z.boolean(),
});
export type TemplateTagGroup = z.infer<typeof TemplateTagGroup>;

/** One page of GET /templates/{id}/tags/groups (template_tag_groups_response.py). */
export const TemplateTagGroups = z.object({
  tags: z.array(TemplateTagGroup),
  nextCursor: z.string().nullable(),
});
export type TemplateTagGroups = z.infer<typeof TemplateTagGroups>;

/** One build in TemplateWithBuilds. */
export const TemplateBuild = z.object({
  buildID: z.string(),
  status: TemplateBuildStatus,
  createdAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().optional(),
  cpuCount: z.number(),
  memoryMB: z.number(),
  diskSizeMB: z.number().optional(),
  envdVersion: z.string().optional(),
});
export type TemplateBuild = z.infer<typeof TemplateBuild>;

/** Answer of GET /templates/{id} (template ID only, not an alias). */
export const TemplateWithBuilds = z.object({
  templateID: z.string(),
  public: z.boolean(),
  aliases: z.array(z.string()),
  names: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastSpawnedAt: z.string().nullable(),
  spawnCount: z.number(),
  builds: z.array(TemplateBuild),
});
export type TemplateWithBuilds = z.infer<typeof TemplateWithBuilds>;

/** One build log line. `step` is `base`, `finalize` or a 1-based step index, as a string. */
export const BuildLogEntry = z.object({
  timestamp: z.string(),
  message: z.string(),
  level: LogLevel,
  step: z.string().optional(),
});
export type BuildLogEntry = z.infer<typeof BuildLogEntry>;

/** Why a build failed. */
export const BuildStatusReason = z.object({
  message: z.string(),
  step: z.string().optional(),
  logEntries: z.array(BuildLogEntry).optional(),
});
export type BuildStatusReason = z.infer<typeof BuildStatusReason>;

/** Answer of GET /templates/{id}/builds/{buildID}/status; at most `limit` entries from `logsOffset`. */
export const TemplateBuildInfo = z.object({
  templateID: z.string(),
  buildID: z.string(),
  status: TemplateBuildStatus,
  /** Legacy v1 lines, `[<RFC 3339>] <message>\n`; empty for v2 builds. */
  logs: z.array(z.string()),
  logEntries: z.array(BuildLogEntry),
  reason: BuildStatusReason.optional(),
});
export type TemplateBuildInfo = z.infer<typeof TemplateBuildInfo>;

/** Answer of PATCH /v2/templates/{id}. */
export const TemplateUpdateResponse = z.object({ names: z.array(z.string()) });
export type TemplateUpdateResponse = z.infer<typeof TemplateUpdateResponse>;

/** Answer of GET /templates/aliases/{alias}: the template the alias names. */
export const TemplateAlias = z.object({ templateID: z.string(), public: z.boolean() });
export type TemplateAlias = z.infer<typeof TemplateAlias>;
