/**
 * Wire schemas of the service's current build system (docs/service.md#builds): POST /v3/templates, the
 * file-upload link, POST /v2/templates/{id}/builds/{buildID} and the tag calls, in the API's casing.
 * Unknown extra fields are accepted and dropped.
 */
import { z } from "zod";

/** Body of POST /v3/templates: an upsert by `name` (`[namespace/]alias[:tag]`, ≤128 characters). */
export const TemplateBuildRequestV3 = z.object({
  name: z.string().max(128).optional(),
  /** Default on the service: `["default"]`. */
  tags: z.array(z.string()).optional(),
  /** Cores; service default 2, 1 or even, at most 32. */
  cpuCount: z.number().int().optional(),
  /** MiB; service default 1024, even, at least 128. */
  memoryMB: z.number().int().optional(),
});
export type TemplateBuildRequestV3 = z.infer<typeof TemplateBuildRequestV3>;

/** The 202 of POST /v3/templates: the template (new or reused by name) and its new, waiting build. */
export const TemplateRequestResponseV3 = z.object({
  templateID: z.string(),
  buildID: z.string(),
  public: z.boolean(),
  /** `namespace/alias` form. */
  names: z.array(z.string()),
  tags: z.array(z.string()),
  /** Deprecated: bare aliases. */
  aliases: z.array(z.string()),
});
export type TemplateRequestResponseV3 = z.infer<typeof TemplateRequestResponseV3>;

/** The 201 of GET /templates/{id}/files/{hash}: whether the files are cached, and where to PUT them. */
export const TemplateBuildFileUpload = z.object({
  present: z.boolean(),
  /** A presigned URL: PUT the archive there, with no credentials and an explicit Content-Length. */
  url: z.string().optional(),
});
export type TemplateBuildFileUpload = z.infer<typeof TemplateBuildFileUpload>;

/**
 * One build step (docs/service.md#build-steps). `args` by type: RUN `[command, user?]`; COPY `[src, dest, user|"", mode|""]`
 * with `filesHash`; ENV/ARG `[k1, v1, k2, v2, …]`; WORKDIR `[path]`; USER `[user]`.
 */
export const TemplateStep = z.object({
  type: z.string(),
  args: z.array(z.string()).optional(),
  filesHash: z.string().optional(),
  /** Bypass the build cache from this step on. */
  force: z.boolean().optional(),
});
export type TemplateStep = z.infer<typeof TemplateStep>;

/** Credentials of a private base image registry. */
export const FromImageRegistry = z.union([
  z.object({ type: z.literal("registry"), username: z.string(), password: z.string() }),
  z.object({ type: z.literal("aws"), awsAccessKeyId: z.string(), awsSecretAccessKey: z.string(), awsRegion: z.string() }),
  z.object({ type: z.literal("gcp"), serviceAccountJson: z.string() }),
]);
export type FromImageRegistry = z.infer<typeof FromImageRegistry>;

/** Body of POST /v2/templates/{id}/builds/{buildID}: one of `fromImage` or `fromTemplate`. */
export const TemplateBuildStartV2 = z.object({
  fromImage: z.string().optional(),
  fromTemplate: z.string().optional(),
  fromImageRegistry: FromImageRegistry.optional(),
  /** Bypass the build cache for every step. */
  force: z.boolean().optional(),
  steps: z.array(TemplateStep).optional(),
  startCmd: z.string().optional(),
  readyCmd: z.string().optional(),
});
export type TemplateBuildStartV2 = z.infer<typeof TemplateBuildStartV2>;

/** The 201 of POST /templates/tags: the tags now pointing at `buildID`. */
export const AssignedTemplateTags = z.object({ tags: z.array(z.string()), buildID: z.string() });
export type AssignedTemplateTags = z.infer<typeof AssignedTemplateTags>;

/** One item of GET /templates/{id}/tags. */
export const TemplateTag = z.object({ tag: z.string(), buildID: z.string(), createdAt: z.string() });
export type TemplateTag = z.infer<typeof TemplateTag>;
