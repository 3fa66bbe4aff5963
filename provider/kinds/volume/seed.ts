/**
 * Seeding a volume through its content API, and finding what changed behind the provider's back.
 * The rule (also in ./spec.ts): only paths of the seed's manifest are ever written or deleted;
 * a path the seed has not written before is uploaded without `force`, so a file a sandbox put there is
 * never overwritten (the upload fails, naming it, unless the file there already holds the seed's bytes); a seeded file is overwritten (with `force`) or
 * deleted only when the seed's own copy changes or is dropped. Logs name files and byte counts, never
 * contents.
 */
import { isSandboxError } from "../../../sdk/errors";
import type { VolumeEntryStat } from "../../../sdk/schemas/volumes";
import type { VolumeContent } from "../../../sdk/volume-content/client";
import { bytesOf, parentDirs, planSeed, sha256Of, type SeedManifest, type SeedSource } from "./content-seed";
import type { Logger } from "../../runtime/log";

/** `content` as `check` made it: its source, the target, and the manifest. */
export interface CheckedContent {
  target: string;
  files: SeedManifest;
}

export type Drift = Record<string, "changed" | "removed">;

export interface SeedOutcome {
  /** What the volume holds from the seed now: the new manifest when all went well, else what was done. */
  files: SeedManifest;
  /** mtime of each seeded file as the volume reported it after the provider wrote it. */
  written: Record<string, string>;
  /** Drift entries still true: those of paths this run neither wrote nor deleted. */
  drift: Drift;
  /** Why seeding stopped part way; absent when it finished. */
  failure?: string;
}

export interface SeedBefore {
  files: SeedManifest;
  written: Record<string, string>;
  drift: Drift;
}

const bytes = (n: number) => `${n} byte${n === 1 ? "" : "s"}`;

/** What a run has done so far: the outcome's fields, updated as each call succeeds. */
type Done = Omit<SeedOutcome, "failure">;

/** Records that the provider just wrote `path` (`stat` as the volume answered) or deleted it (no `stat`). */
function record(done: Done, path: string, file?: SeedManifest[string], stat?: VolumeEntryStat): void {
  delete done.drift[path];
  if (file && stat) {
    done.files[path] = file;
    done.written[path] = stat.mtime;
  } else {
    delete done.files[path];
    delete done.written[path];
  }
}

/**
 * Turns a volume seeded with `before` into one seeded with `content` (undefined: no seed), reading each
 * file to upload from `sources` (by volume path) now: what is uploaded is what is recorded.
 */
export async function applySeed(
  client: VolumeContent, before: SeedBefore, content: CheckedContent | undefined, sources: Record<string, SeedSource>, log: Logger,
): Promise<SeedOutcome> {
  const wanted = content?.files ?? {};
  const plan = planSeed(before.files, wanted);
  const done: Done = { files: { ...before.files }, written: { ...before.written }, drift: { ...before.drift } };
  if (plan.upload.length + plan.remove.length + plan.chmod.length === 0) return { ...done, files: wanted };
  const planned = plan.upload.reduce((n, p) => n + (wanted[p]?.size ?? 0), 0);
  log(`seeding: ${plan.upload.length} file(s) to upload (${bytes(planned)}), ${plan.remove.length} to delete, ${plan.chmod.length} mode change(s)`);
  let sent = 0;
  try {
    for (const path of plan.remove) {
      await client.remove(path).catch(ignore("not_found"));
      record(done, path);
      log(`deleted ${path}`);
    }
    for (const dir of parentDirs(plan.upload)) await client.makeDir(dir, { force: true }).catch(ignore("conflict"));
    for (const path of plan.upload) {
      const source = sources[path];
      if (!source) throw new Error(`content: ${path} is no longer in the seed; run \`pulumi up\` again`);
      const data = bytesOf(source);
      const mode = wanted[path]!.mode;
      const uploaded = await upload(client, path, data, mode, path in before.files);
      record(done, path, { sha256: sha256Of(data), mode, size: data.byteLength }, uploaded.stat);
      if (uploaded.found) {
        log(`found ${path} on the volume with the seed's exact bytes (an upload whose answer was lost): recorded as seeded`);
        continue;
      }
      sent += data.byteLength;
      log(`uploaded ${path} (${bytes(data.byteLength)})`);
    }
    for (const path of plan.chmod) {
      const mode = wanted[path]!.mode;
      record(done, path, { ...done.files[path]!, mode }, await client.setMetadata(path, { mode }));
      log(`set mode ${mode.toString(8)} on ${path}`);
    }
  } catch (err) {
    return { ...done, failure: (err as Error).message };
  }
  log(`seeded: ${plan.upload.length} file(s) uploaded (${bytes(sent)}), ${plan.remove.length} deleted`);
  return done;
}

/**
 * An upload; without `force` a path that exists belongs to someone else, and is refused by name, unless
 * it holds the seed's exact bytes: then it is what an earlier upload of this seed wrote (its answer
 * lost, so never recorded), or a copy no different from it, and is taken as seeded without writing.
 */
async function upload(client: VolumeContent, path: string, data: Uint8Array, mode: number, force: boolean): Promise<{ stat: VolumeEntryStat; found?: true }> {
  try {
    return { stat: await client.upload(path, data, { mode, force }) };
  } catch (err) {
    if (force || !isSandboxError(err) || err.code !== "conflict") throw err;
    // Only a file of the seed's size can hold its bytes: the stat settles most conflicts without a
    // download, and the compare streams, so a file of any size is never held in memory.
    const there = await client.stat(path).catch(() => undefined);
    if (there?.type === "file" && there.size === data.byteLength && (await client.holds(path, data).catch(() => false))) {
      return { stat: (there.mode & 0o777) === mode ? there : await client.setMetadata(path, { mode }), found: true };
    }
    throw new Error(
      `content: ${path} already exists on the volume and was not written by this Volume's seed, so it is left alone. ` +
        "Delete it from the volume (from a sandbox that mounts it), or rename the file in content.path, then run `pulumi up` again.",
    );
  }
}

function ignore(code: string): (err: unknown) => void {
  return (err) => {
    if (!isSandboxError(err) || err.code !== code) throw err;
  };
}

/**
 * Seeded files whose size, mode or mtime on the volume differ from what the provider wrote, or that are
 * gone: one listing of the target directory, as deep as the deepest seeded file.
 */
export async function findDrift(client: VolumeContent, content: CheckedContent, written: Record<string, string>): Promise<Drift> {
  const paths = Object.keys(content.files);
  if (paths.length === 0) return {};
  const base = content.target === "/" ? 0 : content.target.split("/").length - 1;
  const depth = Math.max(...paths.map((p) => p.split("/").length - 1 - base));
  const listed = await client.list(content.target, depth).catch((err: unknown) => {
    if (isSandboxError(err) && err.code === "not_found") return [];
    throw err;
  });
  const byPath = new Map(listed.map((e) => [e.path, e]));
  const drift: Drift = {};
  for (const path of paths.sort()) {
    const entry = byPath.get(path);
    const want = content.files[path]!;
    if (!entry) drift[path] = "removed";
    else if (entry.type !== "file" || entry.size !== want.size || (entry.mode & 0o777) !== want.mode || (written[path] !== undefined && entry.mtime !== written[path])) {
      drift[path] = "changed";
    }
  }
  return drift;
}
