/** Wire shapes of templates: Template (lists), TemplateWithBuilds, TemplateLegacy (v1 202), TemplateBuildInfo. */
import type { BuildRecord, LogLevel, TemplateRecord } from "../store/template-records";
import { buildForTag } from "../store/template-tags";
import { isDefaultTemplate, readyBuild, templateNames } from "../store/templates";

/** Go's zero time, which the v1 build answer carries in every field it leaves unset. */
const ZERO_TIME = "0001-01-01T00:00:00Z";
const LEVELS: LogLevel[] = ["debug", "info", "warn", "error"];

/** Template: `buildID` and resources are those of the last successful build (the latest build before any succeeded). */
export function templateView(t: TemplateRecord, userID: string): Record<string, unknown> {
  const latest = t.builds.at(-1)!;
  const current = readyBuild(t) ?? latest;
  return {
    templateID: t.templateID,
    buildID: current.buildID,
    cpuCount: current.cpuCount,
    memoryMB: current.memoryMB,
    diskSizeMB: current.diskSizeMB,
    public: t.public,
    aliases: [...t.aliases],
    names: templateNames(t),
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
    createdBy: t.builtIn ? null : { id: userID, email: "user@emulator.local" },
    lastSpawnedAt: t.lastSpawnedAt?.toISOString() ?? null,
    spawnCount: t.spawnCount,
    buildCount: t.buildCount,
    envdVersion: current.envdVersion,
    buildStatus: latest.status,
    ...newestFields(t),
  };
}

/**
 * `isDefault` and `description` (e2b 2.63: models/template.py): both only where they say something, so
 * the team's own templates, which are never default and have no description, answer as before.
 */
function newestFields(t: TemplateRecord): Record<string, unknown> {
  return { ...(isDefaultTemplate(t) ? { isDefault: true } : {}), ...(t.description !== undefined ? { description: t.description } : {}) };
}

/**
 * The usage fields of a template another team owns (the built-in ones), as the caller sees them:
 * zero or null (e2b 2.63: models/template.py, `is_default`).
 */
const HIDDEN_USAGE = { spawnCount: 0, buildCount: 0, lastSpawnedAt: null, createdBy: null };

/**
 * A Template of GET /default-templates (e2b 2.63: api/templates/get_default_templates.py): the build,
 * resources and envd version of the newest ready build tagged `default` (zero or empty without one),
 * `buildStatus` of the newest build tagged `default` whatever its state, usage fields hidden.
 */
export function defaultTemplateView(t: TemplateRecord, userID: string): Record<string, unknown> {
  const current = buildForTag(t, "default");
  const newest = defaultTagged(t).at(-1);
  return {
    ...templateView(t, userID),
    buildID: current?.buildID ?? "",
    cpuCount: current?.cpuCount ?? 0,
    memoryMB: current?.memoryMB ?? 0,
    diskSizeMB: current?.diskSizeMB ?? 0,
    envdVersion: current?.envdVersion ?? "",
    buildStatus: newest?.status ?? "",
    ...HIDDEN_USAGE,
  };
}

/**
 * The builds tagged `default`, oldest first: those the tag was ever assigned to and those that take it
 * when ready; every build of a template without tags (built through v1).
 */
function defaultTagged(t: TemplateRecord): BuildRecord[] {
  if (!t.tags) return t.builds;
  const assigned = new Set((t.tagLog ?? []).filter((a) => a.tag === "default").map((a) => a.buildID));
  if (t.tags.default) assigned.add(t.tags.default.buildID);
  return t.builds.filter((b) => assigned.has(b.buildID) || (b.pendingTags ?? []).includes("default"));
}

/**
 * TemplateWithBuilds: `builds` is the page to show, newest first. The fields it shares with Template
 * are computed as there (e2b 2.63 made them required: models/template_with_builds.py); a template of
 * another team shows no usage.
 */
export function withBuildsView(t: TemplateRecord, builds: BuildRecord[], userID: string): Record<string, unknown> {
  const template = templateView(t, userID);
  return {
    templateID: t.templateID,
    buildID: template.buildID,
    cpuCount: template.cpuCount,
    memoryMB: template.memoryMB,
    diskSizeMB: template.diskSizeMB,
    public: t.public,
    aliases: [...t.aliases],
    names: templateNames(t),
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
    createdBy: template.createdBy,
    lastSpawnedAt: t.lastSpawnedAt?.toISOString() ?? null,
    spawnCount: t.spawnCount,
    buildCount: t.buildCount,
    envdVersion: template.envdVersion,
    buildStatus: template.buildStatus,
    ...newestFields(t),
    ...(t.builtIn ? HIDDEN_USAGE : {}),
    builds: builds.map((b) => ({
      buildID: b.buildID,
      status: b.status,
      createdAt: b.createdAt.toISOString(),
      updatedAt: b.updatedAt.toISOString(),
      ...(b.finishedAt ? { finishedAt: b.finishedAt.toISOString() } : {}),
      cpuCount: b.cpuCount,
      memoryMB: b.memoryMB,
      diskSizeMB: b.diskSizeMB,
      envdVersion: b.envdVersion,
    })),
  };
}

/**
 * The 202 of a v1 build. The real handler fills only templateID, the NEW buildID, aliases, names
 * and public; every other field is Go's zero value.
 */
export function legacyBuildView(t: TemplateRecord, build: BuildRecord): Record<string, unknown> {
  return {
    templateID: t.templateID,
    buildID: build.buildID,
    cpuCount: 0,
    memoryMB: 0,
    diskSizeMB: 0,
    public: t.public,
    aliases: [...t.aliases],
    names: templateNames(t),
    createdAt: ZERO_TIME,
    updatedAt: ZERO_TIME,
    createdBy: null,
    lastSpawnedAt: null,
    spawnCount: 0,
    buildCount: 0,
    envdVersion: "",
    buildStatus: "",
  };
}

/** TemplateBuildInfo with log entries `[offset, offset + limit)` of those at `minLevel` or above. */
export function buildInfoView(build: BuildRecord, offset: number, limit: number, minLevel: LogLevel): Record<string, unknown> {
  const floor = LEVELS.indexOf(minLevel);
  const entries = build.logEntries.filter((e) => LEVELS.indexOf(e.level) >= floor);
  return {
    templateID: build.templateID,
    buildID: build.buildID,
    status: build.status,
    logs: [],
    logEntries: entries.slice(offset, offset + limit),
    ...(build.reason ? { reason: build.reason } : {}),
  };
}
