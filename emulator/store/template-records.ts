/** The emulator's stored shapes of templates and their builds (not the wire shapes; see routes/). */

/** Build states as the API reports them. */
export type BuildStatus = "waiting" | "building" | "ready" | "error";

/** Levels of build and sandbox log entries, lowest first. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** BuildLogEntry of the API: `step` is `base`, a 1-based instruction index, or `finalize`. */
export interface BuildLogEntry {
  /** ISO 8601. */
  timestamp: string;
  message: string;
  level: LogLevel;
  step?: string;
}

/** One build of a template; resources are recorded per build. */
export interface BuildRecord {
  buildID: string;
  templateID: string;
  status: BuildStatus;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
  cpuCount: number;
  /** MiB. */
  memoryMB: number;
  /** MiB. */
  diskSizeMB: number;
  envdVersion: string;
  startCmd: string | null;
  readyCmd: string | null;
  dockerfile: string;
  logEntries: BuildLogEntry[];
  /** A v2 build's start request; absent for v1 builds, which build `dockerfile`. Set once started. */
  spec?: V2BuildSpec;
  /** Tags this build takes when it becomes ready (v3 request; `default` unless others were named). */
  pendingTags?: string[];
  /**
   * The v3 request's `minFreeDiskMb` (MiB); absent when it named none (the team's default applies).
   * `diskSizeMB` follows from it when the build starts (templates.ts, diskSizeFor).
   */
  minFreeDiskMb?: number;
  reason?: { message: string; step?: string; logEntries?: BuildLogEntry[] };
}

/** A template and its builds. */
export interface TemplateRecord {
  templateID: string;
  /** Bare aliases (no namespace). */
  aliases: string[];
  public: boolean;
  /** Owned by another team (the built-in `base`): visible, but not ours to change. */
  builtIn: boolean;
  createdAt: Date;
  updatedAt: Date;
  lastSpawnedAt: Date | null;
  spawnCount: number;
  buildCount: number;
  /** Oldest first. */
  builds: BuildRecord[];
  /** Tags of v2 builds → the build each names. `default` is absent until a v2 build sets it. */
  tags?: Record<string, { buildID: string; createdAt: string }>;
  /**
   * Every assignment of a tag to a build, oldest first (template-tags.ts): `tags` holds the latest of
   * each tag. Absent on templates from older snapshots; template-tags.ts derives it from `tags` then.
   */
  tagLog?: TagAssignment[];
  /** Description of the template; only the built-in templates have one (no request sets it). */
  description?: string;
}

/** One assignment of a tag to a build (JSON-safe: it is part of snapshots). */
export interface TagAssignment {
  /** UUID of the assignment event. */
  assignmentID: string;
  tag: string;
  buildID: string;
  /** ISO 8601. */
  assignedAt: string;
  /** Order of the assignment within its template, increasing: breaks ties of `assignedAt`. */
  seq: number;
}

/** What POST /v2/templates/{id}/builds/{buildID} asked for (JSON-safe: it is part of snapshots). */
export interface V2BuildSpec {
  fromImage?: string | undefined;
  /** `fromImageRegistry` as registry credentials (type `registry`, or `gcp` as its `_json_key` login). */
  fromImageRegistry?: { username: string; password: string } | undefined;
  fromTemplate?: string | undefined;
  steps: { type: string; args?: string[] | undefined; filesHash?: string | undefined; force?: boolean | undefined }[];
  force: boolean;
}

/** Version of the in-sandbox server the emulator reports (volume mounts need ≥ 0.5.14). */
export const ENVD_VERSION = "0.6.4";

/** Resources of a build when the request names none (infra: constants/templates.go). */
export const DEFAULT_CPU_COUNT = 2;
/** MiB. */
export const DEFAULT_MEMORY_MB = 1024;
/**
 * Disk of a build, in MiB: what a v1 build gets, and the team's default `minFreeDiskMb` of a v3 build
 * (a team limit in the real service).
 */
export const DEFAULT_DISK_MB = 5120;
/**
 * Size the emulator gives the filesystem of an image a v2 build starts from (`fromImage`), in MiB: what
 * `minFreeDiskMb: 0` leaves it at. The emulator's template files live on the host and are not counted
 * against it, so all of it counts as free (docs/service.md#template-routes-of-the-newest-sdks).
 */
export const IMAGE_DISK_MB = 1024;
