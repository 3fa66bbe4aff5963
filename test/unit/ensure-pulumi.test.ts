/**
 * Which Pulumi CLI scripts/ensure-pulumi.mjs takes: any at or above MINIMUM_CLI, whatever
 * @pulumi/pulumi the program resolved; and when it must get one, PINNED_CLI. The choice is run as the
 * script runs, in a child process, on a made-up PULUMI_HOME and PATH holding stand-in `pulumi`s that
 * only report a version (no download or build is reached: each case has a usable CLI).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
// @ts-expect-error: plain ESM script, shared with npm start
import { cacheOrder, compareVersions, MINIMUM_CLI, parseVersion, PINNED_CLI, PLUGINS, supportedCli } from "../../scripts/ensure-pulumi.mjs";

const ROOT = join(__dirname, "..", "..");
const work = mkdtempSync(join(tmpdir(), "ensure-pulumi-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the version rule", () => {
  test("versions compare as semver; a prerelease comes before its release", () => {
    expect(parseVersion("v3.259.0")).toEqual([3, 259, 0, ""]);
    expect(parseVersion("3.260.0-alpha.1+dirty")).toEqual([3, 260, 0, "alpha.1"]);
    for (const bad of ["", "3.259", "v3.x.0", "pulumi 3.259.0", undefined]) expect(parseVersion(bad), String(bad)).toBeUndefined();
    expect(compareVersions("3.274.1", "v3.259.0")).toBeGreaterThan(0);
    expect(compareVersions("3.259.0", "3.259.0")).toBe(0);
    expect(compareVersions("3.260.0-alpha.1", "3.260.0")).toBeLessThan(0);
    expect(compareVersions("3.99.0", "3.100.0")).toBeLessThan(0);
  });

  test("a CLI at or above the minimum is supported, whatever SDK the program has; below it, or unreadable, is not", () => {
    for (const ok of [`v${MINIMUM_CLI}`, "v3.270.0", "v3.274.1", "v3.300.0-alpha.5"]) expect(supportedCli(ok), ok).toBe(true);
    for (const no of ["v3.258.0", `v${MINIMUM_CLI}-rc.1`, "v2.999.0", "", undefined]) expect(supportedCli(no), String(no)).toBe(false);
  });

  test("the cache is tried pinned version first, then the other supported ones newest first", () => {
    expect(cacheOrder(["3.200.0", "3.274.1", PINNED_CLI, "3.260.0", "not-a-version"])).toEqual([PINNED_CLI, "3.274.1", "3.260.0"]);
    expect(cacheOrder(["3.200.0"])).toEqual([]);
  });

  test("the minimum is the lowest @pulumi/pulumi the package accepts; the pinned CLI is the SDK the lockfile installs (what the suite runs)", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, { version: string }> };
    expect(pkg.dependencies["@pulumi/pulumi"]).toBe(`^${MINIMUM_CLI}`);
    expect(lock.packages["node_modules/@pulumi/pulumi"]?.version).toBe(PINNED_CLI);
    expect(compareVersions(PINNED_CLI, MINIMUM_CLI)).toBeGreaterThanOrEqual(0);
  });
});

let made = 0;

/** A bin dir with a stand-in `pulumi` reporting `version`, and the plugins beside it. */
function cliDir(dir: string, version: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "pulumi"), `#!/bin/sh\necho v${version}\n`);
  chmodSync(join(dir, "pulumi"), 0o755);
  for (const p of PLUGINS as string[]) writeFileSync(join(dir, p), "");
  return dir;
}

/**
 * Runs the script with a fresh PULUMI_HOME holding `cached` versions (a dir name, or [dir name, the
 * version its pulumi reports]) and a PATH of `onPath` (a dir), or of an empty dir; `without` is a
 * plugin left out of every cached dir.
 */
function ensure({ cached = [], onPath, without }: { cached?: (string | [string, string])[]; onPath?: string; without?: string }) {
  const home = join(work, `home-${++made}`);
  for (const c of cached) {
    const [name, reports] = typeof c === "string" ? [c, c] : c;
    const dir = cliDir(join(home, "versions", name, "bin"), reports);
    if (without) rmSync(join(dir, without));
  }
  const emptyDir = join(work, `empty-${made}`);
  mkdirSync(emptyDir);
  const run = spawnSync(process.execPath, [join(ROOT, "scripts", "ensure-pulumi.mjs")], {
    encoding: "utf8",
    env: { PULUMI_HOME: home, PATH: onPath ?? emptyDir, HOME: work },
    timeout: 30_000,
  });
  return { home, status: run.status, stdout: run.stdout.trim(), stderr: run.stderr };
}

describe("the CLI it takes", () => {
  test("a supported pulumi on PATH, newer than the pinned one", () => {
    const path = cliDir(join(work, "path-new"), "3.274.1");
    const r = ensure({ cached: [PINNED_CLI], onPath: path });
    expect(r).toMatchObject({ status: 0, stdout: path });
  });

  test("not a pulumi on PATH older than the minimum: the cache's pinned version, saying why", () => {
    const r = ensure({ cached: ["3.274.1", PINNED_CLI], onPath: cliDir(join(work, "path-old"), "3.200.0") });
    expect(r).toMatchObject({ status: 0, stdout: join(r.home, "versions", PINNED_CLI, "bin") });
    expect(r.stderr).toContain(`older than ${MINIMUM_CLI}`);
  });

  test("without the pinned version, the newest supported one cached (never one below the minimum)", () => {
    const r = ensure({ cached: ["3.200.0", "3.260.0", "3.274.1"] });
    expect(r).toMatchObject({ status: 0, stdout: join(r.home, "versions", "3.274.1", "bin") });
  });

  test("a cached dir whose pulumi reports another version than its name is judged by what it reports", () => {
    const r = ensure({ cached: [["3.280.0", "3.100.0"], "3.261.0"] });
    expect(r).toMatchObject({ status: 0, stdout: join(r.home, "versions", "3.261.0", "bin") });
  });

  test("with no Go to build a missing language host, it fails naming the host and what to install", () => {
    const r = ensure({ cached: [PINNED_CLI], without: "pulumi-language-yaml" });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`lacks pulumi-language-yaml: install Go >= 1.26 so they can be built, or the Pulumi CLI ${PINNED_CLI}`);
  });
});
