// What the parts of `npm run dist` (../dist.mjs) share: the repository's root, the npm CLI, the cache, the
// time every file of an archive carries, and the log lines.
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

export const root = join(import.meta.dirname, "..", "..");
export const require = createRequire(join(root, "package.json"));
export const run = promisify(execFile);
export const PLUGIN = "pulumi-resource-sandbox";

export const log = (msg) => process.stderr.write(`dist: ${msg}\n`);
export const mb = (bytes) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(1)} kB`);
export const sha256 = (data) => createHash("sha256").update(data).digest("hex");

export async function step(name, fn) {
  const started = Date.now();
  const result = await fn();
  log(`${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

export function cacheDir() {
  const base = process.env.PULUMI_BUILD_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "pulumi-sandbox");
  const dir = join(base, "dist");
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The npm CLI: the one running this script under `npm run`, else `npm` on PATH. */
export function npm(args, opts = {}) {
  const [cmd, pre] = process.env.npm_execpath?.endsWith(".js") ? [process.execPath, [process.env.npm_execpath]] : ["npm", []];
  return run(cmd, [...pre, ...args], { maxBuffer: 64 << 20, shell: process.platform === "win32" && cmd === "npm", ...opts });
}

/** Seconds since the epoch every file of the archives and the module zip carries: reproducible output. */
export function sourceDate() {
  if (process.env.SOURCE_DATE_EPOCH) return Number(process.env.SOURCE_DATE_EPOCH);
  try {
    return Number(execFileSync("git", ["log", "-1", "--format=%ct"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
  } catch {
    return 315532800; // 1980-01-01, the earliest a zip can say
  }
}
