#!/usr/bin/env node
/**
 * `npm run contract`: runs the suites with every emulator answer checked against the service's
 * spec (test/contract/), then prints the coverage table kept in README.md ("Contract with the
 * service"): each operation of the spec, whether the emulator serves it, the statuses it answered
 * and the test files whose emulators answered it.
 *
 *   npm run contract                 unit, sdk, emulator, provider and contract suites (not e2e)
 *   npm run contract -- --all        every suite, e2e included (slow: the real Pulumi engine)
 *   npm run contract -- --last       no run: the table of the last checked run (e.g. of `npm test`)
 *
 * Exit code: the run's (non-zero on a failing test or a contract violation).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const REPORT = join(ROOT, "node_modules", ".cache", "pulumi-sandbox", "contract-report.json");
const CONTRACT = join(ROOT, "test", "contract", "platform.contract.json");
const SUITES = ["test/unit", "test/sdk", "test/emulator", "test/provider", "test/contract"];

const args = process.argv.slice(2);
let status = 0;
if (!args.includes("--last")) {
  const dirs = args.includes("--all") ? [] : SUITES;
  const vitest = join(ROOT, "node_modules", ".bin", "vitest");
  const run = spawnSync(vitest, ["run", "-c", "test/contract/vitest.config.mts", ...dirs], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
  status = run.status ?? 1;
}
if (!existsSync(REPORT)) {
  console.error("contract: no report yet; run `npm test` or `npm run contract` first");
  process.exit(1);
}
console.log(table(JSON.parse(readFileSync(CONTRACT, "utf8")), JSON.parse(readFileSync(REPORT, "utf8")), unserved()));
process.exit(status);

/** The markdown table: one row per operation of the spec, in the spec's order. */
function table(contract, report, notServed) {
  const { repo, commit, file } = contract.source;
  const rows = Object.keys(contract.operations).map((op) => {
    const use = report.operations[op];
    const served = notServed.has(op) ? "no (501)" : "yes";
    const statuses = use ? use.statuses.join(", ") : "";
    // contract/served probes every operation once; listing it on every row would say nothing.
    const files = (use?.files ?? []).map((f) => f.replace(/^test\//, "").replace(/\.test\.ts$/, "")).filter((f) => f !== "contract/served");
    return `| \`${op}\` | ${served} | ${statuses} | ${files.join(", ") || "–"} |`;
  });
  const servedCount = Object.keys(contract.operations).filter((op) => !notServed.has(op)).length;
  const checked = Object.keys(contract.operations).filter((op) => !notServed.has(op) && report.operations[op]?.files.some((f) => !f.endsWith("served.test.ts"))).length;
  return [
    `Spec: \`${repo}\` \`${file}\` at \`${commit}\`. ${servedCount} of ${Object.keys(contract.operations).length} operations served, ${checked} of them exercised by tests beyond test/contract/served (which calls every operation once); ${report.exchanges} answers checked, ${report.violations.length} violations; ${report.outsideSpec} answers were for paths the spec does not have (not checked).`,
    "",
    "| Operation | Served | Statuses answered in tests | Checked by (test files) |",
    "| --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}

/** The operations the emulator answers with 501, read from its source (no build needed). */
function unserved() {
  const src = readFileSync(join(ROOT, "emulator", "routes", "unserved.ts"), "utf8");
  const list = src.slice(src.indexOf("UNSERVED_OPERATIONS"), src.indexOf("];"));
  return new Set([...list.matchAll(/"([A-Z]+ \/[^"]*)"/g)].map((m) => m[1]));
}
