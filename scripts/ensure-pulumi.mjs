#!/usr/bin/env node
// Makes a Pulumi CLI available, with the Node language host and the dynamic-provider plugin beside it,
// and prints its bin dir on stdout. Any CLI at or above MINIMUM_CLI will do, whatever @pulumi/pulumi the
// program has (any 3.x from 3.259.0 up); in this order:
//   1. a `pulumi` on PATH (with its language hosts beside it),
//   2. else the cache, $PULUMI_HOME/versions/<version>/bin (where `npx pulumi` and the Automation API
//      look): PINNED_CLI's first, then any other, newest first,
//   3. else PINNED_CLI from the official download (the Automation API's installer), on machines with internet,
//   4. else PINNED_CLI built with the ordinary `go` client from the tagged Go modules (scripts/build-pulumi-cli.sh).
// A second run finds the cache and does nothing. Nothing is built or stored inside the repository.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const root = join(import.meta.dirname, "..");
const require = createRequire(join(root, "package.json"));
// The Python, Go and YAML hosts: examples/python-team, examples/go-sandbox and examples/yaml-sandbox
// (built here from the Go modules when missing; the official download ships them).
export const PLUGINS = ["pulumi-language-nodejs", "pulumi-resource-pulumi-nodejs", "pulumi-language-python", "pulumi-language-go", "pulumi-language-yaml"];
const BUILT_HOSTS = ["pulumi-language-nodejs", "pulumi-language-python", "pulumi-language-python-exec", "pulumi-language-go", "pulumi-language-yaml"];
const log = (msg) => process.stderr.write(`pulumi-sandbox: ${msg}\n`);

/**
 * The lowest Pulumi CLI this package supports: the one its whole suite runs, with @pulumi/pulumi of
 * the same version (the lowest of the package's range). A newer CLI runs it too.
 */
export const MINIMUM_CLI = "3.259.0";
/**
 * The CLI downloaded or built when none at or above MINIMUM_CLI is found. Pinned, not the
 * @pulumi/pulumi a program resolved: the Go module proxy does not serve every Pulumi version
 * (pkg/v3 3.270.0 is refused), and a CLI at or above the minimum runs every SDK of the range
 * (test/e2e/consumer.test.ts runs the newest @pulumi/pulumi on this CLI).
 */
export const PINNED_CLI = "3.259.0";

/** "v3.259.0", "3.260.0-alpha.1+dirty" → [3, 259, 0, prerelease or ""]; undefined for anything else. */
export function parseVersion(text) {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(String(text ?? "").trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] ?? ""] : undefined;
}

/** Semver order of two versions parseVersion accepts (a prerelease sorts before its release). */
export function compareVersions(a, b) {
  const [x, y] = [parseVersion(a), parseVersion(b)];
  if (!x || !y) throw new Error(`not a version: ${x ? b : a}`);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  if (x[3] === y[3]) return 0;
  if (x[3] === "") return 1;
  if (y[3] === "") return -1;
  return x[3] < y[3] ? -1 : 1;
}

/** Whether a CLI reporting `version` (`pulumi version`'s output) is one this package supports. */
export function supportedCli(version, minimum = MINIMUM_CLI) {
  return parseVersion(version) !== undefined && compareVersions(version, minimum) >= 0;
}

/** The cache's version dirs worth trying, in order: the pinned one, then the other supported ones, newest first. */
export function cacheOrder(names, pinned = PINNED_CLI, minimum = MINIMUM_CLI) {
  const others = names.filter((n) => n !== pinned && supportedCli(n, minimum)).sort((a, b) => compareVersions(b, a));
  return [...(names.includes(pinned) ? [pinned] : []), ...others];
}

export function pulumiHome(env = process.env) {
  return env.PULUMI_HOME || join(homedir(), ".pulumi");
}

function versionOf(bin) {
  try {
    return execFileSync(bin, ["version"], { encoding: "utf8", env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" } }).trim();
  } catch {
    return undefined;
  }
}

function onPath(name) {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** A complete install: a supported CLI and every plugin beside it. */
function complete(dir) {
  return existsSync(join(dir, "pulumi")) && PLUGINS.every((p) => existsSync(join(dir, p))) && supportedCli(versionOf(join(dir, "pulumi")));
}

async function officialDownload(version, versionRoot) {
  // The installer fetches a release archive; offline it fails fast on name resolution, but bound it anyway.
  const { PulumiCommand } = require("@pulumi/pulumi/automation");
  // semver is @pulumi/pulumi's dependency: resolved from there, wherever npm placed it in a program.
  const { SemVer } = createRequire(require.resolve("@pulumi/pulumi/package.json"))("semver");
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error("timed out after 120 s")), 120_000).unref());
  try {
    await Promise.race([PulumiCommand.install({ version: new SemVer(version), root: versionRoot }), timeout]);
    return true;
  } catch (err) {
    log(`official download unavailable (${String(err.message ?? err).split("\n")[0].slice(0, 160)})`);
    return false;
  }
}

function goBuild(version, binDir) {
  if (!onPath("go")) {
    throw new Error(
      `No Pulumi CLI ${version} was found and it cannot be downloaded or built here: install the Pulumi CLI ` +
        `${version} (https://www.pulumi.com/docs/install/), or install Go >= 1.26 so it can be built from source.`,
    );
  }
  const started = Date.now();
  execFileSync("bash", [join(root, "scripts", "build-pulumi-cli.sh"), version, binDir], { stdio: ["ignore", "ignore", "inherit"] });
  log(`built the missing parts of the Pulumi CLI ${version} and its language hosts in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/** The dynamic-provider plugin is a 4-line script shipped in @pulumi/pulumi; it must sit beside the CLI. */
function placeProviderPlugin(binDir) {
  const target = join(binDir, "pulumi-resource-pulumi-nodejs");
  if (existsSync(target)) return;
  copyFileSync(join(dirname(require.resolve("@pulumi/pulumi/package.json")), "pulumi-resource-pulumi-nodejs"), target);
  chmodSync(target, 0o755);
}

function cachedVersions(home) {
  try {
    return readdirSync(join(home, "versions"));
  } catch {
    return [];
  }
}

/** Returns the bin dir holding `pulumi` and its plugins, installing PINNED_CLI first when no supported CLI is found. */
export async function ensurePulumi() {
  const found = onPath("pulumi");
  if (found && complete(dirname(found))) return dirname(found);
  if (found) log(`skipping the pulumi on PATH (${found}, ${versionOf(found) ?? "no version"}): it is older than ${MINIMUM_CLI}, the lowest this package supports, or its language hosts are not beside it`);
  const home = pulumiHome();
  for (const version of cacheOrder(cachedVersions(home))) {
    if (complete(join(home, "versions", version, "bin"))) return join(home, "versions", version, "bin");
  }
  const versionRoot = join(home, "versions", PINNED_CLI);
  const binDir = join(versionRoot, "bin");
  mkdirSync(binDir, { recursive: true });
  if (!existsSync(join(binDir, "pulumi")) && !(await officialDownload(PINNED_CLI, versionRoot))) goBuild(PINNED_CLI, binDir);
  // The Node host is needed by everything; the others only by the Python, Go and YAML examples, so a machine
  // without Go still gets a working CLI (it fails below, naming the missing host, only if they are missing).
  if (!existsSync(join(binDir, "pulumi-language-nodejs")) || (BUILT_HOSTS.some((h) => !existsSync(join(binDir, h))) && onPath("go"))) goBuild(PINNED_CLI, binDir);
  placeProviderPlugin(binDir);
  const missing = PLUGINS.filter((p) => !existsSync(join(binDir, p)));
  if (missing.length > 0) {
    throw new Error(
      `the Pulumi CLI in ${binDir} lacks ${missing.join(", ")}: install Go >= 1.26 so they can be built, ` +
        `or the Pulumi CLI ${PINNED_CLI} (https://www.pulumi.com/docs/install/), which ships them`,
    );
  }
  if (!complete(binDir)) throw new Error(`the Pulumi CLI in ${binDir} is not version ${PINNED_CLI}`);
  return binDir;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  try {
    console.log(await ensurePulumi());
  } catch (err) {
    log(err.message);
    process.exit(1);
  }
}
