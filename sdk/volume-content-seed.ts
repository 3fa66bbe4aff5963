/**
 * A seed: the files of a local directory, as they are to appear in a volume under a target directory,
 * named by their volume path and described by content hash, permission bits and size (a manifest). Two
 * manifests give the plan that turns a volume seeded from one into a volume seeded from the other:
 * what to upload, what to delete, whose mode to set. Local only: nothing here calls the service.
 *
 * Limits. The service documents none for the content API; these are the client's: every file goes in
 * one request whose body is held in memory (the upload states its Content-Length), and every file is
 * read and hashed at each preview, so a seed is for configuration and starter data, not bulk data.
 */
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, type Stats } from "node:fs";
import { join, posix, resolve } from "node:path";

/** At most this many files in one seed. */
export const MAX_SEED_FILES = 10_000;
/** At most this many bytes in one file: 64 MiB. */
export const MAX_SEED_FILE_BYTES = 64 * 1024 * 1024;
/** At most this many bytes in all files of one seed: 512 MiB. */
export const MAX_SEED_BYTES = 512 * 1024 * 1024;

/** One seeded file, by what it holds. */
export interface SeedFile {
  /** Hex SHA-256 of the content. */
  sha256: string;
  /** Permission bits (e.g. 0o644 = 420). */
  mode: number;
  size: number;
}

/** Volume path (absolute, e.g. `/config/app.toml`) → the file that seeds it. */
export type SeedManifest = Record<string, SeedFile>;

/** A local file of a seed: where it is read from, and what it is. */
export interface SeedSource extends SeedFile {
  local: string;
}

export interface SeedReading {
  manifest: SeedManifest;
  /** Local path of each file, by volume path. */
  sources: Record<string, string>;
  /** What makes the directory unusable as a seed; empty when it is usable. Each names the file. */
  problems: string[];
}

/**
 * Whether `target` is a clean absolute path inside a volume (`/`, `/data/seed`): no `.` or `..` parts,
 * no empty parts, no trailing slash. A reason when it is not.
 */
export function targetProblem(target: string): string | undefined {
  if (!target.startsWith("/")) return `must be an absolute path inside the volume, like /data (got ${JSON.stringify(target)})`;
  if (target === "/") return undefined;
  const parts = target.slice(1).split("/");
  if (parts.some((p) => p === ".." || p === "." || p === "")) {
    return `must be a clean path inside the volume, without '.', '..' or empty parts (got ${JSON.stringify(target)})`;
  }
  return undefined;
}

/**
 * Reads the directory `dir` (relative paths from `cwd`) as the seed of `target`. Regular files and
 * directories only: a symlink or a device is a problem (the content API makes neither, and a link
 * could reach outside the directory). Empty directories are not part of a seed.
 */
export function readSeed(dir: string, target: string, cwd = process.cwd()): SeedReading {
  const root = resolve(cwd, dir);
  const reading: SeedReading = { manifest: {}, sources: {}, problems: [] };
  let rootStats: Stats;
  try {
    rootStats = lstatSync(root);
  } catch {
    reading.problems.push(`directory ${JSON.stringify(dir)} not found (resolved to ${root})`);
    return reading;
  }
  if (!rootStats.isDirectory()) {
    reading.problems.push(`${JSON.stringify(dir)} is not a directory (resolved to ${root})`);
    return reading;
  }
  let total = 0;
  for (const { rel, local, stats } of walk(root, "")) {
    if (stats.isDirectory()) continue;
    if (!stats.isFile()) {
      reading.problems.push(`${rel} is ${stats.isSymbolicLink() ? "a symbolic link" : "not a regular file"}; a seed holds regular files and directories only`);
      continue;
    }
    if (stats.size > MAX_SEED_FILE_BYTES) {
      reading.problems.push(`${rel} is ${stats.size} bytes; a seeded file may hold at most ${MAX_SEED_FILE_BYTES} bytes (64 MiB)`);
      continue;
    }
    total += stats.size;
    const path = target === "/" ? `/${rel}` : `${target}/${rel}`;
    reading.manifest[path] = { sha256: "", mode: stats.mode & 0o777, size: stats.size };
    reading.sources[path] = local;
  }
  const count = Object.keys(reading.manifest).length;
  if (count > MAX_SEED_FILES) reading.problems.push(`holds ${count} files; a seed may hold at most ${MAX_SEED_FILES}`);
  if (total > MAX_SEED_BYTES) reading.problems.push(`holds ${total} bytes; a seed may hold at most ${MAX_SEED_BYTES} bytes (512 MiB)`);
  if (reading.problems.length > 0) return reading;
  for (const [path, local] of Object.entries(reading.sources)) reading.manifest[path]!.sha256 = sha256Of(readFileSync(local));
  return reading;
}

export function sha256Of(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Every entry under `dir`, sorted, parents before children; links are listed, never followed. */
function* walk(dir: string, rel: string): Generator<{ rel: string; local: string; stats: Stats }> {
  for (const name of readdirSync(dir).sort()) {
    const local = join(dir, name);
    const childRel = rel === "" ? name : posix.join(rel, name);
    const stats = lstatSync(local);
    yield { rel: childRel, local, stats };
    if (stats.isDirectory()) yield* walk(local, childRel);
  }
}

/** What turns a volume seeded from `olds` into one seeded from `news`. Paths sorted. */
export interface SeedPlan {
  /** New paths, or paths whose content changed. */
  upload: string[];
  /** Paths whose content is the same but whose permission bits changed. */
  chmod: string[];
  /** Paths the old seed wrote and the new one no longer has. */
  remove: string[];
}

export function planSeed(olds: SeedManifest, news: SeedManifest): SeedPlan {
  const plan: SeedPlan = { upload: [], chmod: [], remove: [] };
  for (const path of Object.keys(news).sort()) {
    const was = olds[path];
    const now = news[path]!;
    if (!was || was.sha256 !== now.sha256 || was.size !== now.size) plan.upload.push(path);
    else if (was.mode !== now.mode) plan.chmod.push(path);
  }
  plan.remove = Object.keys(olds).filter((p) => !(p in news)).sort();
  return plan;
}

/**
 * The directories to make before uploading `paths` (each made with its parents): the deepest parent
 * directory of each file, leaving out the root and any directory another one in the list lies under.
 */
export function parentDirs(paths: readonly string[]): string[] {
  const dirs = [...new Set(paths.map((p) => posix.dirname(p)).filter((d) => d !== "/"))].sort();
  return dirs.filter((d) => !dirs.some((other) => other !== d && other.startsWith(`${d}/`)));
}
