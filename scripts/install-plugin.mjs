#!/usr/bin/env node
// Installs this package's native provider plugin into Pulumi's plugin cache
// ($PULUMI_HOME/plugins/resource-sandbox-v<version>/), where the engine finds it with no `plugins:`
// entry in Pulumi.yaml and nothing on PATH, and without a download.
//
// The cache holds a launcher, not a copy of the package: bin/pulumi-resource-sandbox loads dist/
// beside itself and its dependencies from node_modules, which a copy in the cache would not have. The
// launcher runs this package's plugin with the Node.js running this script (>= 22, which
// @pulumi/pulumi needs; the engine's PATH may find an older one). Installed through
// `pulumi plugin install --file`, the CLI's own way to fill the cache.
//   usage: node scripts/install-plugin.mjs   (uses the `pulumi` on PATH)
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");

/** Installs the launcher for this package's version; returns that version. `env` is the CLI's environment. */
export function installPlugin({ env = process.env } = {}) {
  const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
  const dir = mkdtempSync(join(tmpdir(), "pulumi-resource-sandbox-"));
  try {
    const launcher = join(dir, "pulumi-resource-sandbox");
    const quote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
    writeFileSync(launcher, `#!/bin/sh\n# Written by pulumi-sandbox's scripts/install-plugin.mjs.\nexec ${quote(process.execPath)} ${quote(join(root, "bin", "pulumi-resource-sandbox"))} "$@"\n`);
    chmodSync(launcher, 0o755);
    const tarball = join(dir, "plugin.tgz");
    execFileSync("tar", ["-czf", tarball, "-C", dir, "pulumi-resource-sandbox"]);
    execFileSync("pulumi", ["plugin", "install", "resource", "sandbox", version, "--file", tarball, "--reinstall"], { env, stdio: ["ignore", "pipe", "pipe"] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return version;
}

if (process.argv[1] === import.meta.filename) console.log(`installed resource plugin sandbox v${installPlugin()}`);
