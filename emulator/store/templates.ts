/**
 * Templates and their builds, in memory. A build request registers a new build (cancelling one in
 * flight), the build runs on a timer, and the template's "current" build is its last ready one.
 * Aliases follow the real service: one bare alias per template, unique across templates, names
 * reported as `<team-slug>/<alias>`.
 */
import { ApiError } from "../http";
import { newTemplateID, newUUID } from "../ids";
import { checkResources } from "../validate";
import type { BuildHost } from "./build-commands";
import { BuildFileStore } from "./build-files";
import type { BuildHold } from "./build-hold";
import { runBuild, type CancelBuild, type V2Inputs } from "./build-runner";
import type { ImageRoots } from "./image-roots";
import {
  DEFAULT_CPU_COUNT, DEFAULT_DISK_MB, DEFAULT_MEMORY_MB, ENVD_VERSION, IMAGE_DISK_MB,
  type BuildRecord, type TemplateRecord, type V2BuildSpec,
} from "./template-records";
import { buildForTag, setTags } from "./template-tags";
import { emptyResult, type TemplateResult } from "./template-tree";
import { UploadHeaderStore } from "./template-upload-headers";

/** A v1 build request (POST /templates, POST /templates/{id}). */
export interface BuildRequest {
  dockerfile: string;
  alias?: string | undefined;
  startCmd?: string | undefined;
  readyCmd?: string | undefined;
  cpuCount?: number | undefined;
  memoryMB?: number | undefined;
}

/** ID of the built-in public template `base` (the real service's, so references in docs work). */
export const BASE_TEMPLATE_ID = "rki5dems9wqfm4r03t7g";
/** Description of the built-in `base` (docs/service.md#template-routes-of-the-newest-sdks). */
export const BASE_DESCRIPTION = "The emulator's built-in base template";
/** Team slug of the emulator's one team: template names read `emulator/<alias>`. */
export const TEAM_SLUG = "emulator";
const ALIAS_RE = /^[a-z0-9_-]+$/;

/** The templates, their builds and the builds' timers. */
export class TemplateStore {
  private readonly templates = new Map<string, TemplateRecord>();
  private readonly cancels = new Map<string, CancelBuild>();
  /** What each ready v2 build produced, by buildID (kept out of the records: snapshots are JSON). */
  private readonly results = new Map<string, TemplateResult>();
  /** The layer cache of v2 builds: what the build had after each step, by the step's layer hash (build-runner.ts). */
  private readonly layers = new Map<string, TemplateResult>();
  /** The archives COPY steps uploaded, and their upload URLs. */
  readonly files = new BuildFileStore();
  /** The headers each upload URL was issued with. */
  readonly uploadHeaders = new UploadHeaderStore();

  /**
   * `buildDelayMs`: how long a successful build takes, in milliseconds. `host`: where RUN steps and
   * start/ready commands run (build-commands.ts); undefined where sandboxes are not isolated.
   * `buildStepMs`: time added to each step (../op-latency.ts). `hold`: keeps builds from ending (./build-hold.ts).
   */
  constructor(
    private readonly buildDelayMs: number,
    private readonly host?: BuildHost,
    private readonly buildStepMs = 0,
    private readonly hold?: BuildHold,
    private readonly images?: ImageRoots,
  ) {
    this.seedBase();
  }

  /** Every template, the built-in one included, oldest first. */
  all(): TemplateRecord[] {
    return [...this.templates.values()];
  }

  byID(templateID: string): TemplateRecord | undefined {
    return this.templates.get(templateID);
  }

  /** Finds a template by ID or alias, with an optional `emulator/` namespace and `:tag`. */
  resolve(ref: string): { template: TemplateRecord; tag: string } | undefined {
    const name = ref.trim().toLowerCase();
    const colon = name.lastIndexOf(":");
    const tag = colon >= 0 ? name.slice(colon + 1) : "default";
    let id = colon >= 0 ? name.slice(0, colon) : name;
    if (id.startsWith(`${TEAM_SLUG}/`)) id = id.slice(TEAM_SLUG.length + 1);
    const template = this.templates.get(id) ?? this.all().find((t) => t.aliases.includes(id));
    return template ? { template, tag } : undefined;
  }

  /** Registers a build of an existing template, or of a new one when `existing` is undefined. */
  register(existing: TemplateRecord | undefined, req: BuildRequest): { template: TemplateRecord; build: BuildRecord } {
    checkResources(req.cpuCount, req.memoryMB);
    const alias = req.alias === undefined ? undefined : parseAlias(req.alias);
    const templateID = existing?.templateID ?? newTemplateID();
    if (alias !== undefined) this.checkAliasFree(alias, templateID);
    const template = existing ?? this.addTemplate(templateID);
    if (alias !== undefined) template.aliases = [alias];
    this.cancelInFlight(template, "The build was canceled because it was superseded by a newer one.");
    const build = newBuild(templateID, req);
    template.builds.push(build);
    template.buildCount += 1;
    template.updatedAt = new Date();
    this.start(template, build);
    return { template, build };
  }

  /**
   * Registers a waiting v2 build (POST /v3/templates): of `existing`, or of a new template. It
   * starts only with startV2; `tags` go to it once it is ready.
   */
  requestV2(
    existing: TemplateRecord | undefined,
    req: { alias: string; tags: string[]; cpuCount?: number | undefined; memoryMB?: number | undefined; minFreeDiskMb?: number | undefined },
  ) {
    checkResources(req.cpuCount, req.memoryMB);
    const templateID = existing?.templateID ?? newTemplateID();
    this.checkAliasFree(req.alias, templateID);
    const template = existing ?? this.addTemplate(templateID);
    template.aliases = [req.alias];
    template.tags ??= {};
    const build = newBuild(templateID, { dockerfile: "", cpuCount: req.cpuCount, memoryMB: req.memoryMB });
    build.pendingTags = req.tags;
    if (req.minFreeDiskMb !== undefined) build.minFreeDiskMb = req.minFreeDiskMb;
    // Until the start names the base, the build's disk is reckoned from an image's.
    build.diskSizeMB = diskSizeFor(IMAGE_DISK_MB, build.minFreeDiskMb);
    template.builds.push(build);
    template.buildCount += 1;
    template.updatedAt = new Date();
    return { template, build };
  }

  /** Starts a waiting v2 build with its steps; builds of the template still running are cancelled. */
  startV2(template: TemplateRecord, build: BuildRecord, spec: V2BuildSpec): void {
    this.cancelInFlight(template, "The build was canceled because it was superseded by a newer one.");
    build.spec = spec;
    build.startCmd = null;
    build.diskSizeMB = diskSizeFor(this.baseDiskMB(spec), build.minFreeDiskMb);
    this.start(template, build);
  }

  /** The build a sandbox of `template` starts from for `tag`, if it is ready. */
  buildFor(template: TemplateRecord, tag: string): BuildRecord | undefined {
    return buildForTag(template, tag);
  }

  /** What a ready v2 build produced; undefined for v1 builds (and v2 builds from a snapshot). */
  resultOf(build: BuildRecord): TemplateResult | undefined {
    return this.results.get(build.buildID);
  }

  /**
   * Puts back a template from a snapshot (../snapshot.ts), under its own ID. A build that was in flight
   * lost its timer with the emulator that ran it: it starts over, so it still ends ready or in error.
   */
  restore(template: TemplateRecord): void {
    this.templates.set(template.templateID, template);
    for (const build of template.builds) {
      if (build.status !== "waiting" && build.status !== "building") continue;
      // A v2 build requested but never started stays waiting for its start call.
      if (build.status === "waiting" && build.spec === undefined && build.dockerfile === "") continue;
      Object.assign(build, { status: "waiting", logEntries: [], finishedAt: null });
      this.start(template, build);
    }
  }

  /** Removes a template, cancelling its builds; its aliases become free. */
  delete(template: TemplateRecord): void {
    this.cancelInFlight(template, "The build was canceled because the template was deleted.");
    this.templates.delete(template.templateID);
    this.files.dropTemplate(template.templateID);
    this.uploadHeaders.dropTemplate(template.templateID);
    for (const build of template.builds) this.results.delete(build.buildID);
  }

  /** Counts a sandbox started from the template. */
  recordSpawn(template: TemplateRecord): void {
    template.spawnCount += 1;
    template.lastSpawnedAt = new Date();
  }

  /** Stops every build timer. */
  close(): void {
    for (const template of this.templates.values()) this.cancelInFlight(template, "The emulator stopped.");
  }

  private start(template: TemplateRecord, build: BuildRecord): void {
    const cancel = runBuild(build, this.buildDelayMs, () => {
      this.cancels.delete(build.buildID);
      template.updatedAt = new Date();
    }, build.spec ? this.v2Inputs(template, build, build.spec) : undefined, this.buildStepMs, this.hold);
    this.cancels.set(build.buildID, cancel);
  }

  private v2Inputs(template: TemplateRecord, build: BuildRecord, spec: V2BuildSpec): V2Inputs {
    const base = spec.fromTemplate === undefined ? undefined : this.resolve(spec.fromTemplate);
    const baseBuild = base ? buildForTag(base.template, base.tag) : undefined;
    return {
      archive: (hash) => this.files.get(template.templateID, hash),
      baseKey: `template:${baseBuild?.buildID ?? ""}`,
      layers: this.layers,
      host: this.host,
      images: this.images,
      // A base built through v1 (or restored from a snapshot) has no tree: it adds no files.
      base: baseBuild ? (this.results.get(baseBuild.buildID) ?? emptyResult()) : undefined,
      done: (result) => {
        this.results.set(build.buildID, result);
        setTags(template, build.pendingTags ?? ["default"], build.buildID);
      },
    };
  }

  /** The disk a v2 build inherits: its base template's ready build's, else an image's. */
  private baseDiskMB(spec: V2BuildSpec): number {
    const base = spec.fromTemplate === undefined ? undefined : this.resolve(spec.fromTemplate);
    const baseBuild = base ? buildForTag(base.template, base.tag) : undefined;
    return baseBuild?.diskSizeMB ?? IMAGE_DISK_MB;
  }

  private cancelInFlight(template: TemplateRecord, reason: string): void {
    for (const build of template.builds) this.cancels.get(build.buildID)?.(reason);
  }

  private checkAliasFree(alias: string, templateID: string): void {
    if (alias !== templateID && this.templates.has(alias)) throw new ApiError(409, `Alias '${alias}' is already used`);
    const owner = this.all().find((t) => t.aliases.includes(alias));
    if (owner && owner.templateID !== templateID) throw new ApiError(403, `Alias '${alias}' already used`);
  }

  private addTemplate(templateID: string): TemplateRecord {
    const now = new Date();
    const template: TemplateRecord = {
      templateID, aliases: [], public: false, builtIn: false, createdAt: now, updatedAt: now,
      lastSpawnedAt: null, spawnCount: 0, buildCount: 0, builds: [],
    };
    this.templates.set(templateID, template);
    return template;
  }

  private seedBase(): void {
    const base = this.addTemplate(BASE_TEMPLATE_ID);
    Object.assign(base, { aliases: ["base"], public: true, builtIn: true, buildCount: 1, description: BASE_DESCRIPTION });
    const build = newBuild(BASE_TEMPLATE_ID, { dockerfile: "FROM e2bdev/base", memoryMB: 512 });
    Object.assign(build, { status: "ready", finishedAt: build.createdAt });
    base.builds.push(build);
  }
}

/** The template's last ready build: the one sandboxes start from. */
export function readyBuild(template: TemplateRecord): BuildRecord | undefined {
  return template.builds.findLast((b) => b.status === "ready");
}

/**
 * Whether the template is one of the platform's default templates: the emulator's are its built-in
 * public ones, i.e. the seeded `base` (docs/service.md#template-routes-of-the-newest-sdks).
 */
export function isDefaultTemplate(template: TemplateRecord): boolean {
  return template.builtIn && template.public;
}

/**
 * Disk of a v2 build, in MiB: the filesystem it inherits, grown to `minFreeDiskMb` (the team's default,
 * DEFAULT_DISK_MB, when the request named none) and never shrunk. The emulator counts none of it as
 * used (its template files live on the host), so the free space is the whole size.
 */
export function diskSizeFor(inheritedMB: number, minFreeDiskMb: number | undefined): number {
  return Math.max(inheritedMB, minFreeDiskMb ?? DEFAULT_DISK_MB);
}

/** `names[]` of the API: `emulator/<alias>` for our templates, the bare alias for the built-in one. */
export function templateNames(template: TemplateRecord): string[] {
  return template.aliases.map((a) => (template.builtIn ? a : `${TEAM_SLUG}/${a}`));
}

/** Trims, lower-cases and checks a requested alias; a `namespace/` prefix must be our team's. */
export function parseAlias(raw: string): string {
  let alias = raw.trim().toLowerCase();
  const slash = alias.indexOf("/");
  if (slash >= 0) {
    const namespace = alias.slice(0, slash);
    if (namespace !== TEAM_SLUG) throw new ApiError(400, `Invalid alias: namespace '${namespace}' must match your team '${TEAM_SLUG}'`);
    alias = alias.slice(slash + 1);
  }
  alias = alias.replace(/:default$/, "");
  if (!ALIAS_RE.test(alias)) {
    throw new ApiError(400, `Invalid alias: '${raw}' must contain only lowercase letters, numbers, dashes and underscores`);
  }
  return alias;
}

function newBuild(templateID: string, req: BuildRequest): BuildRecord {
  const now = new Date();
  return {
    buildID: newUUID(), templateID, status: "waiting", createdAt: now, updatedAt: now, finishedAt: null,
    cpuCount: req.cpuCount ?? DEFAULT_CPU_COUNT, memoryMB: req.memoryMB ?? DEFAULT_MEMORY_MB,
    diskSizeMB: DEFAULT_DISK_MB, envdVersion: ENVD_VERSION, startCmd: req.startCmd ?? null,
    readyCmd: req.readyCmd ?? null, dockerfile: req.dockerfile, logEntries: [],
  };
}
