#!/usr/bin/env node
/**
 * `npm run contract`: runs the suites with every emulator answer checked against the service's
 * specs (test/contract/), then prints the coverage tables kept in docs/service-contract.md: each
 * operation of the platform, envd HTTP, volume content and dashboard specs and of the newest clients' platform
 * contracts, whether the emulator serves it, the statuses it answered and the test files whose
 * emulators answered it.
 *
 *   npm run contract                 unit, sdk, emulator, provider and contract suites (not e2e)
 *   npm run contract -- --all        every suite, e2e included (slow: the real Pulumi engine)
 *   npm run contract -- --last       no run: the tables of the last checked run (e.g. of `npm test`)
 *
 * Exit code: the run's (non-zero on a failing test or a contract violation).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const REPORT = join(ROOT, "node_modules", ".cache", "pulumi-sandbox", "contract-report.json");
const SUITES = ["test/unit", "test/sdk", "test/emulator", "test/provider", "test/contract"];
/** contract/served calls every operation once; listing it on every row would say nothing. */
const PROBE = "test/contract/served.test.ts";

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
const report = JSON.parse(readFileSync(REPORT, "utf8"));
const platform = contractAt("platform.contract.json");
/** The newest clients' contracts, as test/contract/exchanges.ts's NEWEST_CONTRACTS lists them. */
const NEWEST = [
  ["platform-newest.contract.json", "Platform API as the newest npm client's published types declare it"],
  ["platform-newest-python.contract.json", "Platform API as the newest Python client's generated API client declares it"],
];
const envd = contractAt("envd-http.contract.json");
const platformUnserved = listIn("emulator/routes/unserved.ts", "UNSERVED_OPERATIONS");
const envdUnserved = listIn("emulator/envd/http-api.ts", "UNSERVED_ENVD_OPERATIONS");
const dashboardUnserved = listIn("emulator/routes/dashboard.ts", "DASHBOARD_UNSERVED_OPERATIONS: ");
console.log(
  [
    `${report.exchanges} answers checked, ${report.violations.length} violations; ${report.outsideSpec} answers were for paths the specs do not have (not checked).`,
    "",
    ...table("Platform API", platform, "", platformUnserved),
    "",
    ...table("envd HTTP API (in-sandbox; its Connect services are compared by test/contract/protos.test.ts)", envd, "envd ", envdUnserved),
    "",
    ...table("Volume content API (on the platform's origin)", contractAt("volume-content.contract.json"), "", new Set()),
    "",
    ...table("Lifecycle events and webhooks (on the platform's origin; in no published spec)", contractAt("lifecycle-events-docs.contract.json"), "", new Set()),
    "",
    ...table("Dashboard API (on the platform's origin under `/dashboard-api`)", contractAt("dashboard-api.contract.json"), "dashboard ", dashboardUnserved),
    "",
    ...NEWEST.flatMap(([name, title]) => [...newestTable(title, contractAt(name), platform, platformUnserved), ""]),
    "Answered but in no published spec (so not checked): " +
      (Object.entries(report.outsidePaths ?? {}).map(([path, n]) => `\`${path}\` (${n})`).join(", ") || "none") + ".",
  ].join("\n"),
);
process.exit(status);

/** A newest client's table: its answers are counted apart (report.newest), under its source's label. */
function newestTable(title, contract, platformContract, notServed) {
  const added = Object.keys(contract.operations).filter((op) => !(op in platformContract.operations));
  const lead = `${title} (${added.length} operations the platform spec lacks: ${added.map((op) => `\`${op}\``).join(", ")})`;
  const same = (source) => JSON.stringify(source) === JSON.stringify(contract.source);
  return table(lead, contract, "", notServed, Object.values(report.newest ?? {}).find((n) => same(n.source))?.operations ?? {});
}

/** Where a contract came from: a spec file of a repository at a commit, or a published package's code. */
function sourceText(source) {
  if (source.docs) return `written from the ${source.docs} docs pages ${source.pages.map((p) => `<${p}>`).join(" and ")}`;
  if (source.repo) return `\`${source.repo}\` \`${source.file}\` at \`${source.commit.slice(0, 12)}\``;
  return `${source.registry} package \`${source.package}\` ${source.version}, \`${source.file}\``;
}

/** One markdown table: a row per operation of the spec, in the spec's order. */
function table(title, contract, prefix, notServed, uses = report.operations) {
  const ops = Object.keys(contract.operations);
  const rows = ops.map((op) => {
    const use = uses[prefix + op];
    const files = (use?.files ?? []).filter((f) => f !== PROBE).map((f) => f.replace(/^test\//, "").replace(/\.test\.ts$/, ""));
    const served = notServed.has(op) ? "no (501)" : "yes";
    return `| \`${prefix}${op}\` | ${served} | ${use ? use.statuses.join(", ") : ""} | ${files.join(", ") || "–"} |`;
  });
  const served = ops.filter((op) => !notServed.has(op));
  const exercised = served.filter((op) => uses[prefix + op]?.files.some((f) => f !== PROBE));
  return [
    `${title}: ${sourceText(contract.source)}. ${served.length} of ${ops.length} operations served, ${exercised.length} of them exercised by tests beyond ${PROBE} (which calls every operation once).`,
    "",
    "| Operation | Served | Statuses answered in tests | Checked by (test files) |",
    "| --- | --- | --- | --- |",
    ...rows,
  ];
}

function contractAt(name) {
  return JSON.parse(readFileSync(join(ROOT, "test", "contract", name), "utf8"));
}

/** The `METHOD /path` strings of an exported list in the emulator's source (no build needed). */
function listIn(file, name) {
  const src = readFileSync(join(ROOT, file), "utf8");
  const start = src.indexOf(name);
  const list = src.slice(start, src.indexOf("];", start));
  return new Set([...list.matchAll(/"([A-Z]+ \/[^"]*)"/g)].map((m) => m[1]));
}
