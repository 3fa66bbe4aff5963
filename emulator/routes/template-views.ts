/** Wire shapes of templates: Template (lists), TemplateWithBuilds, TemplateLegacy (v1 202), TemplateBuildInfo. */
import type { BuildRecord, LogLevel, TemplateRecord } from "../store/template-records";
import { readyBuild, templateNames } from "../store/templates";

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
  };
}

/** TemplateWithBuilds: `builds` is the page to show, newest first. */
export function withBuildsView(t: TemplateRecord, builds: BuildRecord[]): Record<string, unknown> {
  return {
    templateID: t.templateID,
    public: t.public,
    aliases: [...t.aliases],
    names: templateNames(t),
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
    lastSpawnedAt: t.lastSpawnedAt?.toISOString() ?? null,
    spawnCount: t.spawnCount,
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
