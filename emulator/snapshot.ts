/**
 * Snapshot and restore of the emulator's state. The emulator lives in memory, so a Pulumi state file
 * written against it is worthless once it stops; a snapshot is the service side of such a fixture
 * (test/e2e/fixtures/upgrade): every template with its builds, every volume and every sandbox, as
 * JSON, put back under the same IDs by `createEmulator({ restore })`.
 *
 * Not kept: file contents (sandbox roots and volumes come back empty; mount links are made again),
 * the built-in `base` template (every emulator seeds it), volume tokens (each GET mints a fresh
 * one and nothing checks them), and snapshots of sandboxes (store/sandbox-snapshots.ts): a sandbox
 * snapshot is nothing but its files, which a restore would not have, and no Pulumi resource makes one. Sandboxes keep their clock relative to the snapshot: a sandbox that
 * had 50 minutes to live when the snapshot was taken has 50 minutes from the restore, whenever that is.
 */
import { basename } from "node:path";
import { isUUID } from "./ids";
import type { Stores } from "./store";
import type { MountRecord, SandboxRecord } from "./store/sandbox-records";
import type { BuildRecord, TemplateRecord } from "./store/template-records";

/** Format of `EmulatorSnapshot`; restore refuses any other. */
export const SNAPSHOT_VERSION = 1;

/** A Date field as it is in JSON. */
type Stamped<T, K extends keyof T> = Omit<T, K> & { [P in K]: null extends T[P] ? string | null : string };

export type BuildSnapshot = Stamped<BuildRecord, "createdAt" | "updatedAt" | "finishedAt">;
export type TemplateSnapshot = Omit<Stamped<TemplateRecord, "createdAt" | "updatedAt" | "lastSpawnedAt">, "builds" | "builtIn"> & {
  builds: BuildSnapshot[];
};
export interface VolumeSnapshot {
  volumeID: string;
  name: string;
  createdAt: string;
}
/** A mount names its volume's ID too: a mounted volume may have been deleted (the link then dangles). */
export interface MountSnapshot {
  name: string;
  path: string;
  volumeID: string;
}
export type SandboxSnapshot = Omit<Stamped<SandboxRecord, "startedAt" | "endAt">, "rootDir" | "volumeMounts"> & {
  volumeMounts: MountSnapshot[];
};

/** Everything the emulator holds but files, as JSON (`JSON.stringify` keeps it whole). */
export interface EmulatorSnapshot {
  version: typeof SNAPSHOT_VERSION;
  /** When it was taken (ISO 8601): sandbox times are restored relative to it. */
  takenAt: string;
  /** The team and user IDs the service reported: a restore keeps them, as `createdBy` shows the user. */
  teamID: string;
  userID: string;
  templates: TemplateSnapshot[];
  volumes: VolumeSnapshot[];
  sandboxes: SandboxSnapshot[];
}

/** The JSON form of a value: Dates become ISO strings, as they do on the wire. */
const json = <T>(value: unknown): T => JSON.parse(JSON.stringify(value)) as T;

/** A snapshot of the stores, taken at `now`. */
export function snapshotOf(stores: Stores, now = new Date()): EmulatorSnapshot {
  return {
    version: SNAPSHOT_VERSION,
    takenAt: now.toISOString(),
    teamID: stores.teamID,
    userID: stores.userID,
    templates: stores.templates.all().filter((t) => !t.builtIn).map(({ builtIn: _, ...t }) => json<TemplateSnapshot>(t)),
    volumes: stores.volumes.all().map(({ volumeID, name, createdAt }) => json<VolumeSnapshot>({ volumeID, name, createdAt })),
    sandboxes: stores.sandboxes.all().map(({ rootDir: _, volumeMounts, ...s }) =>
      json<SandboxSnapshot>({ ...s, volumeMounts: volumeMounts.map((m) => ({ name: m.name, path: m.path, volumeID: basename(m.hostDir) /* a volume's directory is named by its ID */ })) }),
    ),
  };
}

/**
 * Puts a snapshot's templates, volumes and sandboxes into fresh stores (whose teamID and userID the
 * caller took from the snapshot). Throws, naming the problem, on a snapshot of another format.
 */
export function restoreInto(stores: Stores, snapshot: EmulatorSnapshot, now = new Date()): void {
  if (snapshot?.version !== SNAPSHOT_VERSION) {
    throw new Error(`restore: an emulator snapshot of version ${SNAPSHOT_VERSION} was expected, got version ${JSON.stringify(snapshot?.version)}`);
  }
  checkPaths(snapshot);
  const shift = now.getTime() - Date.parse(snapshot.takenAt);
  if (!Number.isFinite(shift)) throw new Error(`restore: takenAt must be an ISO 8601 time, got ${JSON.stringify(snapshot.takenAt)}`);
  for (const v of snapshot.volumes) stores.volumes.restore(v.volumeID, v.name, new Date(v.createdAt));
  for (const t of snapshot.templates) stores.templates.restore(templateOf(t));
  for (const s of snapshot.sandboxes) {
    const volumeMounts: MountRecord[] = s.volumeMounts.map((m) => ({ name: m.name, path: m.path, hostDir: stores.volumes.dirOf(m.volumeID) }));
    const later = (iso: string) => new Date(Date.parse(iso) + shift);
    stores.sandboxes.restore({ ...s, startedAt: later(s.startedAt), endAt: later(s.endAt), volumeMounts });
  }
}

/**
 * The IDs and mount paths that name dirs under the data dir (`volumes/<volumeID>`,
 * `sandboxes/<sandboxID>`, `<root><mount path>`), checked as the service checks them at create,
 * so that no snapshot, however made, can name a dir outside the data dir.
 */
function checkPaths(snapshot: EmulatorSnapshot): void {
  const fail = (where: string, rule: string, got: unknown) => {
    throw new Error(`restore: ${where}: ${rule}, got ${JSON.stringify(got)}`);
  };
  snapshot.volumes.forEach((v, i) => isUUID(v.volumeID) || fail(`volumes[${i}].volumeID`, "must be a UUID", v.volumeID));
  snapshot.sandboxes.forEach((s, i) => {
    if (!/^[a-z0-9]+$/.test(s.sandboxID)) fail(`sandboxes[${i}].sandboxID`, "must be [a-z0-9]+", s.sandboxID);
    s.volumeMounts.forEach((m, j) => {
      if (!isUUID(m.volumeID)) fail(`sandboxes[${i}].volumeMounts[${j}].volumeID`, "must be a UUID", m.volumeID);
      const clean = m.path.startsWith("/") && (m.path === "/" || m.path.slice(1).split("/").every((p) => p !== "" && p !== "." && p !== ".."));
      if (!clean) fail(`sandboxes[${i}].volumeMounts[${j}].path`, "must be a clean absolute path", m.path);
    });
  });
}

function templateOf(t: TemplateSnapshot): TemplateRecord {
  return {
    ...t,
    builtIn: false,
    createdAt: new Date(t.createdAt),
    updatedAt: new Date(t.updatedAt),
    lastSpawnedAt: dateOrNull(t.lastSpawnedAt),
    builds: t.builds.map((b) => ({ ...b, createdAt: new Date(b.createdAt), updatedAt: new Date(b.updatedAt), finishedAt: dateOrNull(b.finishedAt) })),
  };
}

const dateOrNull = (iso: string | null) => (iso === null ? null : new Date(iso));
