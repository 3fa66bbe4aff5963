#!/usr/bin/env node
/**
 * `npm run vendor-suites -- <e2b-checkout> [--suite js|py|both] [--work DIR] [--timeout S] [--workers N] [--last]`
 *
 * Runs E2B's own SDK test suites, unedited, against this project's emulator (issue #25): the JS suite
 * (packages/js-sdk/tests) and the Python suite (packages/python-sdk/tests) of a local checkout of
 * e2b-dev/E2B, with only the variables a new user sets (E2B_API_URL, E2B_SANDBOX_URL, E2B_API_KEY).
 * Everything is copied to and installed in a work dir outside the repository (default: the OS temp
 * dir), never into it. A developer tool, not part of `npm test`: it needs npm and PyPI, and the checkout.
 * Both suites run at once against one emulator. Prints, per suite, the tests per file, the failures with
 * the first line of each error, and the tests that need the public internet (a fixed rule,
 * scripts/vendor-suites/needs-internet.mjs); writes the whole result to <work>/summary.json.
 * `--last` runs nothing: it reports the work dir's last results again (after a change of the rule).
 * Exit code: 0 when every test that needs no internet passed or was skipped, 1 otherwise, 2 on bad use.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startEmulator, suiteEnv } from "./vendor-suites/emulator.mjs";
import { readJsResults, runJsSuite } from "./vendor-suites/js-suite.mjs";
import { readPyResults, runPySuite } from "./vendor-suites/py-suite.mjs";
import { figures, report, ruleText } from "./vendor-suites/report.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SUITES = { js: runJsSuite, py: runPySuite };
const LAST = { js: readJsResults, py: readPyResults };

function parse(argv) {
  const opts = { suite: "both", work: join(tmpdir(), "pulumi-sandbox-vendor-suites"), timeout: 300, workers: 2 };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "--last") opts.last = true;
    else if (flag === "--suite" || flag === "--work" || flag === "--timeout" || flag === "--workers") opts[flag.slice(2)] = argv[++i];
    else rest.push(flag);
  }
  if (rest.length !== 1 || !["js", "py", "both"].includes(opts.suite)) return undefined;
  return { ...opts, checkout: resolve(rest[0]), timeout: Number(opts.timeout), workers: Number(opts.workers) };
}

async function main() {
  const opts = parse(process.argv.slice(2));
  if (!opts || !existsSync(join(opts.checkout, "packages", "js-sdk", "tests"))) {
    console.error("usage: npm run vendor-suites -- <checkout of e2b-dev/E2B> [--suite js|py|both] [--work DIR] [--timeout S] [--workers N] [--last]");
    process.exit(2);
  }
  const names = opts.suite === "both" ? ["js", "py"] : [opts.suite];
  const results = opts.last
    ? Object.fromEntries(names.map((name) => [name, LAST[name](opts.work).tests]))
    : await runSuites(opts, names);
  const lines = [...ruleText(), ""];
  for (const name of names) lines.push(...report(name, results[name]), "");
  console.log(lines.join("\n"));
  writeFileSync(join(opts.work, "summary.json"), JSON.stringify(results, null, 1));
  process.exit(names.every((n) => figures(results[n]).offlineFailed === 0) ? 0 : 1);
}

/** Starts the emulator and runs the suites against it; their tests by suite name. */
async function runSuites(opts, names) {
  mkdirSync(opts.work, { recursive: true });
  const emulator = await startEmulator(ROOT, join(opts.work, "emulator.log"));
  console.log(`emulator at ${emulator.env.E2B_API_URL} (isolation: ${emulator.isolation}); work dir ${opts.work}`);
  const results = {};
  try {
    // Each suite runs in a child process of its own; running them side by side halves the wall time.
    await Promise.all(names.map(async (name) => {
      results[name] = (await runInWorker(name, { ...opts, env: suiteEnv(emulator.env), timeoutMs: opts.timeout * 1000 })).tests;
    }));
  } finally {
    await emulator.stop();
  }
  return results;
}

/** Runs one suite off the main thread, so the two suites' child processes overlap. */
async function runInWorker(name, args) {
  const { Worker } = await import("node:worker_threads");
  return new Promise((resolvePromise, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { name, args } });
    worker.once("message", resolvePromise);
    worker.once("error", reject);
  });
}

const { isMainThread, parentPort, workerData } = await import("node:worker_threads");
if (isMainThread) await main();
else parentPort.postMessage(SUITES[workerData.name](workerData.args));
