// Bench 6: a template with a 50 MB build context, built, then built again after one file changed:
// bytes uploaded and time of each build, the provider (which asks the service for each COPY step's
// files hash and uploads only what it lacks) against uploading every archive every time.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fmt, median, ratio, runWorker, table } from "./lib.mjs";

/** The context: four folders of random (incompressible) files, 50 MB (10^6 bytes) in all. */
const LAYOUT = [
  { dir: "deps", files: 200, size: 100_000 },
  { dir: "assets", files: 30, size: 500_000 },
  { dir: "models", files: 2, size: 7_000_000 },
  { dir: "src", files: 100, size: 10_000 },
];
const CHANGED = "src/file-0.txt";
/** One COPY step per folder, as a Dockerfile that wants a cache-friendly build is written. */
const PER_FOLDER = ["FROM python:3.12", ...LAYOUT.map((l) => `COPY ${l.dir} /app/${l.dir}`), "RUN echo built"].join("\n");
/** The whole context in one COPY step: one changed file changes that step's one archive. */
const ONE_STEP = ["FROM python:3.12", "COPY . /app", "RUN echo built"].join("\n");

function makeContext() {
  const dir = mkdtempSync(join(tmpdir(), "bench-template-upload-"));
  for (const { dir: sub, files, size } of LAYOUT) {
    mkdirSync(join(dir, sub));
    for (let i = 0; i < files; i++) writeFileSync(join(dir, sub, `file-${i}.txt`), randomBytes(size));
  }
  return dir;
}

export async function uploadBench({ service, reps, log }) {
  const cases = [
    { name: "ours, one COPY per folder", mode: "ours", dockerfile: PER_FOLDER },
    { name: "upload everything, one COPY per folder", mode: "everything", dockerfile: PER_FOLDER },
    { name: "ours, one `COPY . /app`", mode: "ours", dockerfile: ONE_STEP },
  ];
  const results = new Map(cases.map((c) => [c.name, []]));
  for (let rep = 0; rep < reps; rep++) {
    for (const c of cases) {
      const contextDir = makeContext();
      try {
        const alias = `bench-upload-${rep}-${c.mode}-${c.dockerfile === ONE_STEP ? "one" : "per"}`;
        const r = await runWorker("template-upload.mjs", { service, contextDir, dockerfile: c.dockerfile, changed: CHANGED, mode: c.mode, alias });
        results.get(c.name).push(r);
        log(`  upload ${c.name}: second build ${fmt(r.second.ms, 0)} ms, ${r.second.bytes} bytes`);
      } finally {
        rmSync(contextDir, { recursive: true, force: true });
      }
    }
  }
  const MB = 1e6;
  const base = results.get(cases[1].name);
  const baseBytes = median(base.map((r) => r.second.bytes));
  const baseMs = median(base.map((r) => r.second.ms));
  const rows = cases.map((c) => {
    const rs = results.get(c.name);
    const bytes = median(rs.map((r) => r.second.bytes));
    const ms = median(rs.map((r) => r.second.ms));
    return [
      c.name, fmt(median(rs.map((r) => r.first.bytes)) / MB, 1), fmt(median(rs.map((r) => r.first.ms)), 0),
      fmt(bytes / MB, 3), ratio(bytes, baseBytes, 3), fmt(ms, 0), ratio(ms, baseMs),
    ];
  });
  return table(["client", "1st build MB up", "1st build ms", "2nd build MB up", "vs everything", "2nd build ms", "vs everything"], rows);
}
