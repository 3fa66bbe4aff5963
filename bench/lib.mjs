// Shared helpers of the benchmarks: statistics, tables, and child processes that report one JSON line.
import { spawn } from "node:child_process";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "..");

/** Median of numbers (mean of the middle two for an even count). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** `12.3` with `digits` decimals, or `-` for a missing value. */
export const fmt = (x, digits = 1) => (x === undefined || x === null || Number.isNaN(x) ? "-" : x.toFixed(digits));

/** `×1.23`: how many times `ours` is `base` (ratio of medians). */
export const ratio = (ours, base, digits = 2) => (base && ours !== undefined ? `×${(ours / base).toFixed(digits)}` : "-");

/** A Markdown table (readable as printed, pasted as is into RESULTS.md). */
export function table(headers, rows) {
  const cells = [headers, ...rows].map((r) => r.map(String));
  const widths = headers.map((_, i) => Math.max(3, ...cells.map((r) => r[i].length)));
  const line = (r) => `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`;
  return [line(cells[0]), rule, ...cells.slice(1).map(line)].join("\n");
}

/**
 * Runs `node <script> <json args>` with this Node (the project's) and resolves with the JSON of its last stdout
 * line. One child per measurement: its memory and JIT state are its own.
 */
export function runWorker(script, args = {}, { env = process.env, cwd = ROOT, nodeArgs = [] } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, join(ROOT, "bench", "workers", script), JSON.stringify(args)], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const last = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0) return reject(new Error(`${script} exited ${code}: ${err.trim().slice(-2000)}`));
      try {
        resolve(JSON.parse(last));
      } catch {
        reject(new Error(`${script} printed no JSON result: ${out.slice(-500)} ${err.slice(-500)}`));
      }
    });
  });
}

/** Wall time of `fn` in milliseconds, with its result. */
export async function timed(fn) {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}
