/**
 * The service's current build system (docs/service.md#builds): POST /v3/templates registers a waiting
 * build (an upsert by name), GET /templates/{id}/files/{hash} hands out upload URLs of the
 * emulator's own (PUT /_uploads/<token>, standing for the object store), POST /v2/…/builds/{buildID}
 * starts the build with its steps, and the tag calls point names at builds. API key throughout.
 */
import { z } from "zod";
import { ApiError, json, noContent, type Reply, type RequestContext } from "../http";
import { isUUID } from "../ids";
import type { Route } from "../router";
import type { Stores } from "../store";
import { MAX_UPLOAD_BYTES, UPLOAD_PATH } from "../store/build-files";
import { snapshotTags } from "../store/sandbox-snapshots";
import type { TemplateRecord } from "../store/template-records";
import { buildForTarget, removeTags, setTags, tagList } from "../store/template-tags";
import { UPLOAD_KEY_HEADER } from "../store/template-upload-headers";
import { parseAlias, templateNames } from "../store/templates";
import { parseBody } from "../validate";
import { checkTag, templateTagRoutes } from "./template-tag-history";

const RequestV3Schema = z.object({
  name: z.string().max(128).optional(),
  alias: z.string().max(128).optional(),
  tags: z.array(z.string()).optional(),
  teamID: z.string().optional(),
  // The spec's CPUCount and MemoryMB minimums, which its validator checks before the handler's limits.
  cpuCount: z.int32().min(1, "number must be at least 1").optional(),
  memoryMB: z.int32().min(128, "number must be at least 128").optional(),
  // MiB of free disk the build should leave (docs/service.md#template-routes-of-the-newest-sdks).
  minFreeDiskMb: z.int32().min(0, "number must be at least 0").optional(),
});
const StepSchema = z.object({ type: z.string(), args: z.array(z.string()).optional(), filesHash: z.string().optional(), force: z.boolean().optional() });
const StartV2Schema = z.object({
  fromImage: z.string().optional(),
  fromTemplate: z.string().optional(),
  fromImageRegistry: z
    .discriminatedUnion("type", [
      z.object({ type: z.literal("registry"), username: z.string(), password: z.string() }),
      z.object({ type: z.literal("aws"), awsAccessKeyId: z.string(), awsSecretAccessKey: z.string(), awsRegion: z.string() }),
      z.object({ type: z.literal("gcp"), serviceAccountJson: z.string() }),
    ])
    .optional(),
  force: z.boolean().optional(),
  steps: z.array(StepSchema).optional(),
  startCmd: z.string().optional(),
  readyCmd: z.string().optional(),
});
const AssignTagsSchema = z.object({ target: z.string(), tags: z.array(z.string()) });
const DeleteTagsSchema = z.object({ name: z.string(), tags: z.array(z.string()) });
const HASH_RE = /^[0-9a-f]{64}$/;

/** The v3/v2 build routes, the tag routes (those of the tag history too) and the upload URL. */
export function templateBuildRoutes(stores: Stores): Route[] {
  return [
    { method: "POST", pattern: "/v3/templates", auth: "apiKey", handler: (ctx) => requestBuild(stores, ctx) },
    { method: "GET", pattern: "/templates/:templateID/files/:hash", auth: "either", handler: (ctx) => fileLink(stores, ctx) },
    { method: "PUT", pattern: `${UPLOAD_PATH}/:token`, auth: "none", handler: (ctx) => upload(stores, ctx) },
    { method: "POST", pattern: "/v2/templates/:templateID/builds/:buildID", auth: "apiKey", handler: (ctx) => startBuild(stores, ctx) },
    { method: "POST", pattern: "/templates/tags", auth: "apiKey", handler: (ctx) => assignTags(stores, ctx) },
    { method: "DELETE", pattern: "/templates/tags", auth: "apiKey", handler: (ctx) => deleteTags(stores, ctx) },
    { method: "GET", pattern: "/templates/:templateID/tags", auth: "apiKey", handler: (ctx) => json(200, tagsOf(stores, ctx.params.templateID!)) },
    ...templateTagRoutes(stores),
  ];
}

async function requestBuild(stores: Stores, ctx: RequestContext): Promise<Reply> {
  const body = parseBody(RequestV3Schema, await ctx.json());
  const raw = body.name ?? body.alias;
  if (raw === undefined || raw.trim() === "") throw new ApiError(400, "name is required");
  const colon = raw.lastIndexOf(":");
  const alias = parseAlias(colon >= 0 ? raw.slice(0, colon) : raw);
  const named = colon >= 0 ? [raw.slice(colon + 1).trim().toLowerCase()] : [];
  const tags = [...new Set([...named, ...(body.tags ?? []).map((t) => t.trim().toLowerCase())])];
  for (const tag of tags) checkTag(tag);
  const existing = stores.templates.all().find((t) => t.aliases.includes(alias));
  if (existing?.builtIn) throw new ApiError(403, `You do not have access to the template '${alias}'`);
  const { template, build } = stores.templates.requestV2(existing, {
    alias, tags: tags.length > 0 ? tags : ["default"], cpuCount: body.cpuCount, memoryMB: body.memoryMB, minFreeDiskMb: body.minFreeDiskMb,
  });
  return json(202, {
    templateID: template.templateID, buildID: build.buildID, public: template.public,
    names: templateNames(template), tags: build.pendingTags ?? [], aliases: [...template.aliases],
  });
}

function fileLink(stores: Stores, ctx: RequestContext): Reply {
  const template = ownTemplate(stores, ctx.params.templateID!);
  const hash = ctx.params.hash!;
  if (!HASH_RE.test(hash)) throw new ApiError(400, "Invalid files hash");
  const present = stores.templates.files.has(template.templateID, hash);
  const path = stores.templates.files.uploadPath(template.templateID, hash);
  // The URL is signed over these headers: the upload must send them (template-upload-headers.ts).
  const headers = stores.templates.uploadHeaders.issue(path.slice(UPLOAD_PATH.length + 1), template.templateID);
  return json(201, { present, url: `${ctx.origin}${path}`, headers });
}

/** The object store's side: PUT only, Content-Length required (a chunked upload is a 501), size-capped. */
async function upload(stores: Stores, ctx: RequestContext): Promise<Reply> {
  const length = ctx.headers["content-length"];
  if (length === undefined) {
    return storeError(501, "NotImplemented", "A header you provided implies functionality that is not implemented", "Transfer-Encoding");
  }
  if (Number(length) > MAX_UPLOAD_BYTES) {
    return storeError(400, "EntityTooLarge", `Your proposed upload exceeds the maximum allowed size (${MAX_UPLOAD_BYTES} bytes)`);
  }
  const token = ctx.params.token!;
  if (!stores.templates.files.accepts(token)) return storeError(403, "AccessDenied", "Request has expired or the signature does not match");
  const sent = ctx.headers[UPLOAD_KEY_HEADER];
  if (stores.templates.uploadHeaders.mismatched(token, Array.isArray(sent) ? sent[0] : sent)) {
    return storeError(403, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Check your key and signing method.");
  }
  stores.templates.files.put(token, await ctx.bytes(MAX_UPLOAD_BYTES));
  return { status: 200 };
}

/** An object store's XML error body. */
function storeError(status: number, code: string, message: string, header?: string): Reply {
  const extra = header ? `<Header>${header}</Header>` : "";
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message>${extra}</Error>`;
  return { status, body: Buffer.from(xml), headers: { "content-type": "application/xml" } };
}

async function startBuild(stores: Stores, ctx: RequestContext): Promise<Reply> {
  // Body, then build ID, then template: the handler's order (infra: handlers/template_start_build_v2.go).
  const body = parseBody(StartV2Schema, await ctx.json());
  const buildID = ctx.params.buildID!;
  if (!isUUID(buildID)) throw new ApiError(400, `Invalid build ID: ${buildID}`);
  const template = ownTemplate(stores, ctx.params.templateID!);
  const build = template.builds.find((b) => b.buildID === buildID.toLowerCase());
  if (!build) throw new ApiError(404, `Build '${buildID}' not found`);
  if (build.status !== "waiting" || build.spec !== undefined) throw new ApiError(400, "build is not in waiting state");
  checkSource(body.fromImage, body.fromTemplate);
  for (const step of body.steps ?? []) {
    if (step.filesHash !== undefined && !HASH_RE.test(step.filesHash)) throw new ApiError(400, `Invalid files hash '${step.filesHash}'`);
  }
  stores.templates.startV2(template, build, {
    fromImage: body.fromImage, fromTemplate: body.fromTemplate, force: body.force === true,
    fromImageRegistry: registryLogin(body.fromImageRegistry),
    steps: (body.steps ?? []).map((s) => ({ type: s.type, args: s.args, filesHash: s.filesHash, force: s.force })),
  });
  build.startCmd = body.startCmd ?? null;
  build.readyCmd = body.readyCmd ?? null;
  // An empty 202 says so (as Go's server does): clients decide from Content-Length not to parse it.
  return { status: 202, headers: { "content-length": "0" } };
}

/**
 * The login a registry takes for `fromImageRegistry`: a registry's username and password; a Google
 * registry's service account key as the `_json_key` user (Artifact Registry's and GCR's key login).
 * AWS keys sign a call to ECR for a token, which the emulator does not make: the pull goes without,
 * and ECR's refusal is the build's error.
 */
function registryLogin(given: z.infer<typeof StartV2Schema>["fromImageRegistry"]): { username: string; password: string } | undefined {
  if (given?.type === "registry") return { username: given.username, password: given.password };
  if (given?.type === "gcp") return { username: "_json_key", password: given.serviceAccountJson };
  return undefined;
}

/**
 * Exactly one of fromImage and fromTemplate, and not empty (e2b 2.63: models/template_build_start_v2.py);
 * the messages are the service's (infra: packages/api/internal/template-manager/create_template.go).
 */
function checkSource(fromImage: string | undefined, fromTemplate: string | undefined): void {
  if (fromImage !== undefined && fromTemplate !== undefined) throw new ApiError(400, "cannot specify both fromImage and fromTemplate");
  if (fromImage === undefined && fromTemplate === undefined) throw new ApiError(400, "must specify either fromImage or fromTemplate");
  if (fromImage?.trim() === "") throw new ApiError(400, "fromImage must not be empty");
  if (fromTemplate?.trim() === "") throw new ApiError(400, "fromTemplate must not be empty");
}

async function assignTags(stores: Stores, ctx: RequestContext): Promise<Reply> {
  const body = parseBody(AssignTagsSchema, await ctx.json());
  const found = stores.templates.resolve(body.target);
  if (!found || found.template.builtIn) throw new ApiError(404, `template '${nameOf(body.target)}' not found`);
  const build = buildForTarget(found.template, found.tag);
  if (!build) throw new ApiError(404, `tag '${found.tag}' does not exist for template '${nameOf(body.target)}'`);
  const tags = body.tags.map((t) => t.trim().toLowerCase());
  if (tags.length === 0) throw new ApiError(400, "at least one tag is required");
  for (const tag of tags) checkTag(tag);
  setTags(found.template, tags, build.buildID);
  return json(201, { tags, buildID: build.buildID });
}

async function deleteTags(stores: Stores, ctx: RequestContext): Promise<Reply> {
  const body = parseBody(DeleteTagsSchema, await ctx.json());
  const found = stores.templates.resolve(body.name);
  if (!found || found.template.builtIn) throw new ApiError(404, `template '${nameOf(body.name)}' not found`);
  const tags = body.tags.map((t) => t.trim().toLowerCase());
  if (tags.includes("default")) throw new ApiError(400, "the 'default' tag cannot be deleted");
  const missing = tags.find((t) => !found.template.tags?.[t]);
  if (missing !== undefined) throw new ApiError(404, `tag '${missing}' does not exist for template '${nameOf(body.name)}'`);
  removeTags(found.template, tags);
  return noContent();
}

function nameOf(ref: string): string {
  return ref.trim().toLowerCase().replace(/:[^:/]*$/, "");
}

/**
 * The tags of a template, or of a snapshot (a template of its own kind on the service, whose tags
 * this route lists the same way: infra handlers/template_tags.go, GetTemplatesTemplateIDTags).
 */
function tagsOf(stores: Stores, ref: string): { tag: string; buildID: string; createdAt: string }[] {
  const snapshot = stores.templates.resolve(ref) ? undefined : stores.snapshots.resolve(ref)?.snapshot;
  return snapshot ? snapshotTags(snapshot) : tagList(ownTemplate(stores, ref));
}

/** A template of ours by ID or alias: 404 when unknown, 403 for the built-in one. */
function ownTemplate(stores: Stores, ref: string): TemplateRecord {
  const template = stores.templates.resolve(ref)?.template;
  if (!template) throw new ApiError(404, `Template '${ref}' not found`);
  if (template.builtIn) throw new ApiError(403, `You do not have access to the template '${ref}'`);
  return template;
}
