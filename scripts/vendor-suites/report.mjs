/**
 * What a suite run prints: the figures, the tests per file, each failure with the first line of
 * its error, and the tests the fixed rule (needs-internet.mjs) classes as needing the internet,
 * kept apart so they are listed, never hidden, and never counted against the emulator.
 */
import { INTERNET_RULES } from "./needs-internet.mjs";

/** The first non-empty line of an error text. */
export function firstLine(text) {
  return (text ?? "").split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "";
}

/** Counts of a suite's tests; `offline` are those that need no public network. */
export function figures(tests) {
  const count = (list, status) => list.filter((t) => t.status === status).length;
  const offline = tests.filter((t) => !t.internet);
  const run = offline.filter((t) => t.status !== "skipped");
  return {
    total: tests.length,
    passed: count(tests, "passed"),
    failed: count(tests, "failed"),
    skipped: count(tests, "skipped"),
    needsInternet: tests.length - offline.length,
    offlinePassed: count(offline, "passed"),
    offlineFailed: count(offline, "failed"),
    offlinePassRate: run.length === 0 ? 0 : count(offline, "passed") / run.length,
  };
}

/** The report of one suite, as lines of text. */
export function report(suite, tests) {
  const f = figures(tests);
  const out = [`== ${suite} suite ==`, ""];
  out.push("per file (passed/failed/skipped):");
  const files = [...new Set(tests.map((t) => t.file))].sort();
  for (const file of files) {
    const own = tests.filter((t) => t.file === file);
    const n = (s) => own.filter((t) => t.status === s).length;
    out.push(`  ${file}  ${n("passed")}/${n("failed")}/${n("skipped")}`);
  }
  out.push("", "failures (needing no internet):");
  for (const t of tests.filter((t) => t.status === "failed" && !t.internet)) out.push(`  ${t.file} :: ${t.name}\n      ${t.error}`);
  out.push("", "needs internet (by the rule in scripts/vendor-suites/needs-internet.mjs):");
  for (const t of tests.filter((t) => t.internet)) out.push(`  [${t.internet}] ${t.status}  ${t.file} :: ${t.name}`);
  out.push("", `${suite}: ${f.total} tests: ${f.passed} passed, ${f.failed} failed, ${f.skipped} skipped; ` +
    `${f.needsInternet} need the internet; of the rest ${f.offlinePassed} passed, ${f.offlineFailed} failed ` +
    `(${(f.offlinePassRate * 100).toFixed(1)} % of those run)`);
  return out;
}

/** The rule's text, printed once so a reader of the output can check each classing. */
export function ruleText() {
  return ["A test needs the internet when its own body matches one of:",
    ...INTERNET_RULES.map((r) => `  ${r.id}: ${r.pattern}  (${r.why})`)];
}
