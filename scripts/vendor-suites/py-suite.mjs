/**
 * The Python suite (packages/python-sdk/tests) of an E2B checkout, run unedited with its own
 * pytest.ini. The tests import `e2b` as an installed package, so a venv in the work dir gets the
 * published `e2b` of the checkout's own version from PyPI, with the suite's test tools at the
 * checkout's own version ranges (its `dev` dependency group, linters and type checkers left out).
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { internetRule, testBody } from "./needs-internet.mjs";
import { firstLine } from "./report.mjs";
import { failedFiles, passedInEither, testFilesUnder, withoutUrls } from "./second-run.mjs";

const PYTHON = process.env.VENDOR_SUITES_PYTHON ?? "python3.11";
const STARTS_TEST = /^\s*(?:async\s+)?def\s+test_/;
/** A file that fakes (part of) the service with unittest.mock instead of calling it. */
const MOCKS_SERVICE = /\b(?:AsyncMock|MagicMock|Mock)\(/;

/** Copies the suite into `work`, makes its venv once, runs it; returns the parsed results. */
export function runPySuite({ checkout, work, env, timeoutMs, workers }) {
  const sdk = join(checkout, "packages", "python-sdk");
  const dir = join(work, "py");
  mkdirSync(dir, { recursive: true });
  const python = makeVenv(dir, readFileSync(join(sdk, "pyproject.toml"), "utf8"));
  const suite = join(dir, "suite");
  rmSync(suite, { recursive: true, force: true });
  mkdirSync(suite);
  cpSync(join(sdk, "tests"), join(suite, "tests"), { recursive: true });
  cpSync(join(sdk, "pytest.ini"), join(suite, "pytest.ini"));
  const common = ["-q", "-p", "no:cacheprovider", "-o", "junit_family=xunit1", `--timeout=${Math.ceil(timeoutMs / 1000)}`];
  pytest(python, suite, env, ["tests", ...common, ...(workers > 1 ? ["-n", String(workers)] : [])], join(dir, "results.xml"));
  // Unit tests (tests/test_connection_config.py: what URL a config gives) and files that fake the
  // service with mocks (test_config_propagation.py) check the default domain's URLs, which the two
  // URL variables change. As for the JS suite, the files that fake the service and the files with a
  // failed test run once more with the API key but not the two URLs, and a test is taken from the run
  // it passed in (nothing here reaches the public service, so a test passes only where its requests
  // were answered), else from the first run.
  const bare = withoutUrls(env);
  rmSync(join(dir, "results-bare.xml"), { force: true });
  const failed = failedFiles(readPyResults(work).tests);
  const units = testFilesUnder(join(suite, "tests"), (name) => /^test_.*\.py$/.test(name)).filter((f) => failed.has(f) || MOCKS_SERVICE.test(readFileSync(join(suite, f), "utf8")));
  if (units.length > 0) pytest(python, suite, bare, [...units, ...common], join(dir, "results-bare.xml"));
  return readPyResults(work);
}

function pytest(python, suite, env, args, out) {
  rmSync(out, { force: true });
  const run = spawnSync(python, ["-m", "pytest", ...args, `--junitxml=${out}`], { cwd: suite, env, stdio: ["ignore", "inherit", "inherit"] });
  if (!existsSync(out)) throw new Error(`the Python suite wrote no ${basename(out)} (exit ${run.status})`);
}

/** The results of the last Python run in `work`, classed again (`--last`). */
export function readPyResults(work) {
  const dir = join(work, "py");
  const parse = (name) => existsSync(join(dir, name)) ? parseJunit(readFileSync(join(dir, name), "utf8"), join(dir, "suite")).tests : [];
  return { tests: passedInEither(parse("results.xml"), parse("results-bare.xml")) };
}

/** The pyproject's version and the `dev` group's pytest tools, as pip requirements. */
export function requirements(pyproject) {
  const version = /^version\s*=\s*"([^"]+)"/m.exec(pyproject)?.[1];
  const dev = /^dev\s*=\s*\[([\s\S]*?)\]/m.exec(pyproject)?.[1] ?? "";
  const tools = [...dev.matchAll(/"((?:pytest|python-dotenv)[^"]*)"/g)].map((m) => m[1]);
  if (!version || tools.length === 0) throw new Error("pyproject.toml: no version or no dev pytest tools found");
  return [`e2b==${version}`, ...tools];
}

function makeVenv(dir, pyproject) {
  const venv = join(dir, "venv");
  const python = join(venv, "bin", "python");
  const wanted = requirements(pyproject).join("\n");
  const stamp = join(venv, "requirements.txt");
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === wanted) return python;
  if (!existsSync(python)) spawnOrThrow(PYTHON, ["-m", "venv", venv], "making the venv");
  spawnOrThrow(python, ["-m", "pip", "install", "-q", ...wanted.split("\n")], "pip install of the Python suite's packages");
  writeFileSync(stamp, wanted);
  return python;
}

function spawnOrThrow(cmd, args, what) {
  const r = spawnSync(cmd, args, { stdio: "inherit" });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status ?? r.error?.message})`);
}

/** pytest's xunit1 junit report → { tests: [{ file, name, status, error, internet }] }. */
function parseJunit(xml, suite) {
  const tests = [];
  const sources = new Map();
  for (const m of xml.matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const attrs = attributes(m[1]);
    const inner = m[2] ?? "";
    const problem = /<(failure|error)\b([^>]*)>/.exec(inner);
    const skipped = /<skipped\b/.test(inner);
    const file = attrs.file ?? attrs.classname.replace(/\./g, "/") + ".py";
    if (!sources.has(file)) {
      const path = join(suite, file);
      sources.set(file, existsSync(path) ? readFileSync(path, "utf8").split("\n") : []);
    }
    const body = attrs.line !== undefined ? testBody(sources.get(file), Number(attrs.line) + 1, (l) => STARTS_TEST.test(l)) : "";
    tests.push({
      file,
      name: attrs.name,
      status: problem ? "failed" : skipped ? "skipped" : "passed",
      error: problem ? firstLine(attributes(problem[2]).message ?? "") : "",
      internet: internetRule(body)?.id,
    });
  }
  return { tests };
}

function attributes(text) {
  const out = {};
  for (const m of text.matchAll(/([\w:-]+)="([^"]*)"/g)) out[m[1]] = unescapeXml(m[2]);
  return out;
}

function unescapeXml(s) {
  return s.replace(/&(lt|gt|quot|apos|amp|#\d+|#x[0-9a-f]+);/gi, (_, e) =>
    e === "lt" ? "<" : e === "gt" ? ">" : e === "quot" ? '"' : e === "apos" ? "'" : e === "amp" ? "&"
      : String.fromCodePoint(e[1].toLowerCase() === "x" ? parseInt(e.slice(2), 16) : Number(e.slice(1))));
}

