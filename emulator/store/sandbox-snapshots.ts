/**
 * Persistent snapshots of sandboxes (POST /sandboxes/{id}/snapshots), not to be confused with
 * ../snapshot.ts (the emulator's own state save/restore). On the service a snapshot is a template
 * of its own kind (`source = 'snapshot_template'`): a template ID, an optional alias in the team's
 * namespace, and builds by tag, each the sandbox's memory and files at one moment; `GET /templates`
 * does not list them, `POST /sandboxes` starts from them, `DELETE /templates/{id}` deletes them
 * (docs/service.md#sandbox-snapshots). Here a build is a copy of the sandbox's files, under
 * `<dataDir>/sandbox-snapshots/<buildID>`, with the settings a sandbox started from it inherits.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { copyTree } from "../confined/copy-tree";
import { removeTreeSync } from "../confined/remove-tree";
import { newTemplateID, newUUID } from "../ids";
import type { LifecycleSink } from "./lifecycle-types";
import type { SandboxRecord } from "./sandbox-records";
import { TEAM_SLUG } from "./templates";

/** What a sandbox started from a snapshot inherits from the sandbox it was taken of. */
export type SnapshotOrigin = Pick<
  SandboxRecord,
  | "sandboxID" | "templateID" | "alias" | "envdVersion" | "secure" | "cpuCount" | "memoryMB" | "diskSizeMB" | "metadata"
  | "envVars" | "network" | "allowInternetAccess" | "autoPause" | "autoResume" | "volumeMounts" | "defaults" | "imageDir"
>;

/** One build of a snapshot: the files of a sandbox at one moment, under one tag. */
export interface SnapshotBuild {
  buildID: string;
  tag: string;
  createdAt: Date;
  /** Host dir holding the copy of the sandbox's `/`. */
  filesDir: string;
  origin: SnapshotOrigin;
  /**
   * Whether it was asked to keep the memory too (the default) or only the files (`memory: false`).
   * Either way a sandbox started from it begins without the source's processes: the emulator cannot
   * copy a running process, so it starts every sandbox from a snapshot as a cold boot.
   */
  memory?: boolean | undefined;
}

/** A snapshot template. */
export interface SandboxSnapshotRecord {
  templateID: string;
  /** Its bare alias, when it was named. */
  alias?: string | undefined;
  /** The sandbox its first build was taken of (what `GET /snapshots?sandboxID=` filters on). */
  sandboxID: string;
  createdAt: Date;
  /** Oldest first; the newest build of a tag is the one it names. */
  builds: SnapshotBuild[];
}

/** A snapshot name as the handler parses it: a bare alias and a tag. */
export interface SnapshotName {
  alias: string;
  tag: string;
}

/** The snapshots and their files. */
export class SandboxSnapshotStore {
  private readonly snapshots = new Map<string, SandboxSnapshotRecord>();

  /** `dir`: where builds' files are kept (`<dataDir>/sandbox-snapshots`); `lifecycle` hears each snapshot taken (`checkpointed`). */
  constructor(private readonly dir: string, private readonly lifecycle?: LifecycleSink) {
    mkdirSync(dir, { recursive: true });
  }

  all(): SandboxSnapshotRecord[] {
    return [...this.snapshots.values()];
  }

  byAlias(alias: string): SandboxSnapshotRecord | undefined {
    return this.all().find((s) => s.alias === alias);
  }

  /**
   * Copies the sandbox's files into a new build: of the snapshot already named `name`, else of a
   * new snapshot (named `name` when given). Volume mounts are not copied: a volume is not the sandbox's.
   */
  async take(sandbox: SandboxRecord, name?: SnapshotName, opts: { memory?: boolean } = {}): Promise<{ snapshot: SandboxSnapshotRecord; build: SnapshotBuild }> {
    const build: SnapshotBuild = {
      buildID: newUUID(), tag: name?.tag ?? "default", createdAt: new Date(), filesDir: "", origin: originOf(sandbox), memory: opts.memory ?? true,
    };
    build.filesDir = await this.copyOf(sandbox.rootDir, sandbox.volumeMounts.map((m) => m.path), build.buildID);
    let snapshot = name ? this.byAlias(name.alias) : undefined;
    if (!snapshot) {
      snapshot = { templateID: newTemplateID(), alias: name?.alias, sandboxID: sandbox.sandboxID, createdAt: build.createdAt, builds: [] };
      this.snapshots.set(snapshot.templateID, snapshot);
    }
    snapshot.builds.push(build);
    this.lifecycle?.("checkpointed", sandbox, { snapshot_id: snapshot.templateID });
    return { snapshot, build };
  }

  /** A copy of a sandbox's files that belongs to no snapshot (a fork's); remove it with `discard`. */
  async capture(sandbox: SandboxRecord): Promise<string> {
    return this.copyOf(sandbox.rootDir, sandbox.volumeMounts.map((m) => m.path), newUUID());
  }

  discard(filesDir: string): void {
    removeTreeSync(filesDir);
  }

  /**
   * Finds a snapshot by ID or alias, with an optional `<team slug>/` and `:tag` (default
   * `default`); `build` is undefined when the tag names none of its builds.
   */
  resolve(ref: string): { snapshot: SandboxSnapshotRecord; build: SnapshotBuild | undefined; tag: string } | undefined {
    const name = ref.trim().toLowerCase();
    const colon = name.indexOf(":");
    const tag = colon >= 0 ? name.slice(colon + 1) : "default";
    let id = colon >= 0 ? name.slice(0, colon) : name;
    if (id.startsWith(`${TEAM_SLUG}/`)) id = id.slice(TEAM_SLUG.length + 1);
    const snapshot = this.snapshots.get(id) ?? this.byAlias(id);
    return snapshot ? { snapshot, build: newestOf(snapshot, tag), tag } : undefined;
  }

  /** Deletes a snapshot with the files of all its builds. */
  delete(snapshot: SandboxSnapshotRecord): void {
    this.snapshots.delete(snapshot.templateID);
    for (const build of snapshot.builds) removeTreeSync(build.filesDir);
  }

  private async copyOf(rootDir: string, mounts: string[], buildID: string): Promise<string> {
    const filesDir = join(this.dir, buildID);
    mkdirSync(filesDir, { mode: 0o700 });
    try {
      await copyTree(rootDir, filesDir, mounts);
    } catch (err) {
      removeTreeSync(filesDir);
      throw err;
    }
    return filesDir;
  }
}

/** The snapshot's newest build of `tag`, or of any tag when `tag` is undefined. */
export function newestOf(snapshot: SandboxSnapshotRecord, tag?: string): SnapshotBuild | undefined {
  return snapshot.builds.findLast((b) => tag === undefined || b.tag === tag);
}

/**
 * GET /templates/{id}/tags of a snapshot: each tag with its newest build, by tag name (infra:
 * packages/db/queries/templates/list_template_tags.sql, ListTemplateTags).
 */
export function snapshotTags(snapshot: SandboxSnapshotRecord): { tag: string; buildID: string; createdAt: string }[] {
  const tags = [...new Set(snapshot.builds.map((b) => b.tag))].sort();
  return tags.map((tag) => newestOf(snapshot, tag)!).map((b) => ({ tag: b.tag, buildID: b.buildID, createdAt: b.createdAt.toISOString() }));
}

/** `names[]` of the API: `<team slug>/<alias>` for a named snapshot, none otherwise. */
export function snapshotNames(snapshot: SandboxSnapshotRecord): string[] {
  return snapshot.alias === undefined ? [] : [`${TEAM_SLUG}/${snapshot.alias}`];
}

/** `snapshotID` of the API: the first name, else the template ID, with the build's tag. */
export function snapshotIDOf(snapshot: SandboxSnapshotRecord, build: SnapshotBuild): string {
  return `${snapshotNames(snapshot)[0] ?? snapshot.templateID}:${build.tag}`;
}

function originOf(s: SandboxRecord): SnapshotOrigin {
  return {
    sandboxID: s.sandboxID, templateID: s.templateID, alias: s.alias, envdVersion: s.envdVersion, secure: s.secure,
    cpuCount: s.cpuCount, memoryMB: s.memoryMB, diskSizeMB: s.diskSizeMB, metadata: { ...s.metadata }, envVars: { ...s.envVars },
    network: s.network, allowInternetAccess: s.allowInternetAccess, autoPause: s.autoPause, autoResume: s.autoResume,
    volumeMounts: s.volumeMounts.map((m) => ({ ...m })), defaults: s.defaults, imageDir: s.imageDir,
  };
}
