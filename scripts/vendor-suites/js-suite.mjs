/**
 * The JS suite (packages/js-sdk/tests) of an E2B checkout, run unedited with its own vitest config.
 *
 * The tests import the SDK as `../src` and reach into its modules (`../src/envd/api`,
 * `../src/template/utils`...), which the published `e2b` bundle does not expose; so the suite runs
 * on the checkout's own src, compiled on the fly by vitest (no build step), which is also the exact
 * SDK version the tests were written for. Its packages (the SDK's dependencies and the test tools
 * it imports, at the checkout's own version ranges) are installed from npm into the work dir.
 * The `browser` project (a Chromium, which this machine cannot download) and tests/runtimes
 * (Bun, Deno, Cloudflare) are not run.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { internetRule, testBody } from "./needs-internet.mjs";
import { firstLine } from "./report.mjs";
import { failedFiles, passedInEither, testFilesUnder, withoutUrls } from "./second-run.mjs";

/** Test tools the suite imports (its config included) beyond the SDK's own dependencies. */
const TEST_PACKAGES = ["vitest", "msw", "dotenv", "@vitest/browser-playwright", "error-stack-parser-es"];
const PROJECTS = ["unit", "template", "connectionConfig"];
const MOCKS_SERVICE = /from ['"]msw(?:\/node)?['"]/;
// A `describe(` ends the test before it too: its own setup lines belong to the tests inside it.
const STARTS_TEST = /^\s*(?:sandboxTest|buildTemplateTest|volumeTest|test|it|describe)(?:\.\w+)*\(/;

/** Copies the suite into `work`, installs its packages once, runs it; returns the parsed results. */
export function runJsSuite({ checkout, work, env, timeoutMs, workers }) {
  const sdk = join(checkout, "packages", "js-sdk");
  const manifest = JSON.parse(readFileSync(join(sdk, "package.json"), "utf8"));
  const dir = join(work, "js");
  mkdirSync(dir, { recursive: true });
  installPackages(dir, manifest);
  const pkg = join(dir, "pkg");
  rmSync(pkg, { recursive: true, force: true });
  cpSync(sdk, pkg, { recursive: true, filter: (src) => !src.includes("node_modules") });
  // Files that fake the service with msw answer only the default domain's URLs: under the three
  // variables msw refuses their requests. Some of these files also hold tests against the service
  // (tests/template/tags.test.ts). So every file runs under the variables, and the msw files once more
  // with the API key (the SDK demands one) but not the two URLs, as the vendor runs its unit tests;
  // a test of theirs is taken from the run it passed in (nothing here reaches the public service, so
  // a test passes only where its requests were answered), else from the first run.
  const files = testFilesUnder(join(pkg, "tests"), (name) => name.endsWith(".test.ts"));
  const mocked = files.filter((f) => MOCKS_SERVICE.test(readFileSync(join(pkg, f), "utf8")));
  const bare = withoutUrls(env);
  const common = [...PROJECTS.flatMap((p) => ["--project", p]), "--reporter=dot", "--includeTaskLocation",
    `--testTimeout=${timeoutMs}`, `--hookTimeout=${timeoutMs}`, `--maxWorkers=${workers}`];
  vitest(dir, pkg, env, common, "results.json");
  // Unit tests that fake nothing (tests/sandbox/urls.test.ts builds a Sandbox by hand and checks its
  // URLs for the default domain) fail under the variables too: every file with a failed test runs
  // again, by the same rule.
  rmSync(join(dir, "results-mocked.json"), { force: true });
  const failed = failedFiles(readJsResults(work).tests);
  const again = [...new Set([...mocked, ...files.filter((f) => failed.has(f))])];
  if (again.length > 0) vitest(dir, pkg, bare, [...common, ...again], "results-mocked.json");
  return readJsResults(work);
}

function vitest(dir, pkg, env, args, name) {
  const out = join(dir, name);
  rmSync(out, { force: true });
  const run = spawnSync(join(dir, "node_modules", ".bin", "vitest"), ["run", "--reporter=json", `--outputFile=${out}`, ...args],
    { cwd: pkg, env, stdio: ["ignore", "inherit", "inherit"] });
  if (!existsSync(out)) throw new Error(`the JS suite wrote no ${name} (exit ${run.status})`);
}

/** The results of the last JS run in `work`, classed again (`--last`). */
export function readJsResults(work) {
  const dir = join(work, "js");
  const parse = (name, mocked) => existsSync(join(dir, name))
    ? parseVitest(JSON.parse(readFileSync(join(dir, name), "utf8")), join(dir, "pkg"), mocked).tests : [];
  return { tests: passedInEither(parse("results.json", false), parse("results-mocked.json", true)) };
}

function installPackages(dir, manifest) {
  const wanted = { ...manifest.dependencies };
  for (const name of TEST_PACKAGES) wanted[name] = manifest.devDependencies[name];
  const text = JSON.stringify({ name: "vendor-js-suite", private: true, dependencies: wanted }, null, 1);
  const file = join(dir, "package.json");
  if (existsSync(join(dir, "node_modules", ".bin", "vitest")) && existsSync(file) && readFileSync(file, "utf8") === text) return;
  writeFileSync(file, text);
  const npm = spawnSync("npm", ["install", "--no-audit", "--no-fund"], { cwd: dir, stdio: "inherit" });
  if (npm.status !== 0) throw new Error(`npm install of the JS suite's packages failed (exit ${npm.status})`);
}

/** vitest's JSON report → { tests: [{ file, name, status, error, internet, mocked }] }. */
function parseVitest(report, pkg, mocked) {
  const tests = [];
  for (const file of report.testResults) {
    const rel = relative(pkg, file.name);
    const lines = existsSync(file.name) ? readFileSync(file.name, "utf8").split("\n") : [];
    if (file.assertionResults.length === 0 && file.status === "failed") {
      tests.push({ file: rel, name: "(file did not load)", status: "failed", error: firstLine(file.message), internet: undefined, mocked });
    }
    for (const t of file.assertionResults) {
      const body = t.location ? testBody(lines, t.location.line, (l) => STARTS_TEST.test(l)) : "";
      tests.push({
        file: rel,
        name: [...t.ancestorTitles, t.title].join(" > "),
        status: t.status === "passed" ? "passed" : t.status === "failed" ? "failed" : "skipped",
        error: firstLine(t.failureMessages?.[0]),
        internet: internetRule(body)?.id,
        mocked,
      });
    }
  }
  return { tests };
}

