/**
 * A seed: files of local directories, single local files or inline bytes (what a directory or a Pulumi
 * archive holds), as they are to appear in a volume under a target directory, named by their volume path and described by content hash, permission bits and size (a manifest). Two
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

/** Where a seeded file's bytes come from: a local file, or bytes given inline. */
export type SeedSource = { file: string } | { bytes: Uint8Array };

export interface SeedReading {
  manifest: SeedManifest;
  /** Where each file's bytes come from, by volume path. */
  sources: Record<string, SeedSource>;
  /** What makes the seed unusable; empty when it is usable. Each names the file. */
  problems: string[];
}

/** The bytes of a seeded file, read now. */
export function bytesOf(source: SeedSource): Uint8Array {
  return "file" in source ? readFileSync(source.file) : source.bytes;
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
 * Collects a seed's files under `target` from any mix of directories, local files and inline bytes,
 * with the limits checked as it goes; `finish` hashes them (only when there is no problem).
 */
export class SeedCollector {
  private readonly reading: SeedReading = { manifest: {}, sources: {}, problems: [] };
  private total = 0;

  constructor(private readonly target: string) {}

  problem(text: string): void {
    this.reading.problems.push(text);
  }

  /**
   * Every file under the directory `dir` (resolved from `cwd`), at `under` (a relative path; "" for the
   * target itself). Regular files and directories only: a symlink or a device is a problem (the content
   * API makes neither, and a link could reach outside the directory). Empty directories are left out.
   */
  directory(dir: string, under = "", cwd = process.cwd()): void {
    const root = resolve(cwd, dir);
    let rootStats: Stats;
    try {
      rootStats = lstatSync(root);
    } catch {
      return this.problem(`directory ${JSON.stringify(dir)} not found (resolved to ${root})`);
    }
    if (!rootStats.isDirectory()) return this.problem(`${JSON.stringify(dir)} is not a directory (resolved to ${root})`);
    for (const { rel, local, stats } of walk(root, "")) {
      if (stats.isDirectory()) continue;
      const name = under === "" ? rel : `${under}/${rel}`;
      if (!stats.isFile()) {
        this.problem(`${name} is ${stats.isSymbolicLink() ? "a symbolic link" : "not a regular file"}; a seed holds regular files and directories only`);
        continue;
      }
      this.add(name, { file: local }, stats.size, stats.mode & 0o777);
    }
  }

  /** One local file at the relative path `name`. */
  file(name: string, local: string, cwd = process.cwd()): void {
    const at = resolve(cwd, local);
    let stats: Stats;
    try {
      stats = lstatSync(at);
    } catch {
      return this.problem(`${name}: file ${JSON.stringify(local)} not found (resolved to ${at})`);
    }
    if (!stats.isFile()) return this.problem(`${name}: ${JSON.stringify(local)} is not a regular file`);
    this.add(name, { file: at }, stats.size, stats.mode & 0o777);
  }

  /** Inline bytes at the relative path `name`, with mode 644. */
  bytes(name: string, data: Uint8Array): void {
    this.add(name, { bytes: data }, data.byteLength, 0o644);
  }

  private add(name: string, source: SeedSource, size: number, mode: number): void {
    if (size > MAX_SEED_FILE_BYTES) return this.problem(`${name} is ${size} bytes; a seeded file may hold at most ${MAX_SEED_FILE_BYTES} bytes (64 MiB)`);
    const path = this.target === "/" ? `/${name}` : `${this.target}/${name}`;
    if (path in this.reading.manifest) return this.problem(`${name} is given twice`);
    this.total += size;
    this.reading.manifest[path] = { sha256: "", mode, size };
    this.reading.sources[path] = source;
  }

  /** The reading, with every file hashed; unhashed when there are problems (they fail the input anyway). */
  finish(): SeedReading {
    const { manifest, sources, problems } = this.reading;
    const count = Object.keys(manifest).length;
    if (count > MAX_SEED_FILES) problems.push(`holds ${count} files; a seed may hold at most ${MAX_SEED_FILES}`);
    if (this.total > MAX_SEED_BYTES) problems.push(`holds ${this.total} bytes; a seed may hold at most ${MAX_SEED_BYTES} bytes (512 MiB)`);
    if (problems.length === 0) for (const [path, source] of Object.entries(sources)) manifest[path]!.sha256 = sha256Of(bytesOf(source));
    return this.reading;
  }
}

/** The directory `dir` (relative paths from `cwd`) as the seed of `target`. */
export function readSeed(dir: string, target: string, cwd = process.cwd()): SeedReading {
  const seed = new SeedCollector(target);
  seed.directory(dir, "", cwd);
  return seed.finish();
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
