#!/usr/bin/env node
// Makes a Pulumi CLI of the same version as the installed @pulumi/pulumi available, with the Node
// language host and the dynamic-provider plugin beside it, and prints its bin dir on stdout.
//   1. a `pulumi` on PATH of that version (with its language host),
//   2. else the cache: $PULUMI_HOME/versions/<version>/bin (where `npx pulumi` and the Automation API look),
//   3. else the official download (the Automation API's installer), on machines with internet,
//   4. else a build with the ordinary `go` client from the tagged Go modules (scripts/build-pulumi-cli.sh).
// A second run finds the cache and does nothing. Nothing is built or stored inside the repository.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const root = join(import.meta.dirname, "..");
const require = createRequire(join(root, "package.json"));
// The Python and Go hosts: examples/python-team and examples/go-sandbox (built here from the Go modules when missing).
const PLUGINS = ["pulumi-language-nodejs", "pulumi-resource-pulumi-nodejs", "pulumi-language-python", "pulumi-language-go"];
const BUILT_HOSTS = ["pulumi-language-nodejs", "pulumi-language-python", "pulumi-language-python-exec", "pulumi-language-go"];
const log = (msg) => process.stderr.write(`pulumi-sandbox: ${msg}\n`);

export function pulumiVersion() {
  return require("@pulumi/pulumi/package.json").version;
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

/** A complete install: the CLI of our version and every plugin beside it. */
function complete(dir, version) {
  return existsSync(join(dir, "pulumi")) && PLUGINS.every((p) => existsSync(join(dir, p))) && versionOf(join(dir, "pulumi")) === `v${version}`;
}

async function officialDownload(version, versionRoot) {
  // The installer fetches a release archive; offline it fails fast on name resolution, but bound it anyway.
  const { PulumiCommand } = require("@pulumi/pulumi/automation");
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error("timed out after 120 s")), 120_000).unref());
  try {
    await Promise.race([PulumiCommand.install({ version: new (require("semver").SemVer)(version), root: versionRoot }), timeout]);
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
  log(`built the Pulumi CLI ${version} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/** The dynamic-provider plugin is a 4-line script shipped in @pulumi/pulumi; it must sit beside the CLI. */
function placeProviderPlugin(binDir) {
  const target = join(binDir, "pulumi-resource-pulumi-nodejs");
  if (existsSync(target)) return;
  copyFileSync(join(dirname(require.resolve("@pulumi/pulumi/package.json")), "pulumi-resource-pulumi-nodejs"), target);
  chmodSync(target, 0o755);
}

/** Returns the bin dir holding `pulumi` and its plugins, installing them first when needed. */
export async function ensurePulumi() {
  const version = pulumiVersion();
  const found = onPath("pulumi");
  if (found && complete(dirname(found), version)) return dirname(found);
  const versionRoot = join(pulumiHome(), "versions", version);
  const binDir = join(versionRoot, "bin");
  if (complete(binDir, version)) return binDir;
  mkdirSync(binDir, { recursive: true });
  if (!existsSync(join(binDir, "pulumi")) && !(await officialDownload(version, versionRoot))) goBuild(version, binDir);
  // The Node host is needed by everything; the others only by the Python and Go examples, so a machine
  // without Go still gets a working CLI (it fails below, naming the missing host, only if they are missing).
  if (!existsSync(join(binDir, "pulumi-language-nodejs")) || (BUILT_HOSTS.some((h) => !existsSync(join(binDir, h))) && onPath("go"))) goBuild(version, binDir);
  placeProviderPlugin(binDir);
  if (!complete(binDir, version)) throw new Error(`the Pulumi CLI in ${binDir} is incomplete or not version ${version}`);
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
