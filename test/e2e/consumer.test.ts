/**
 * A user's stack with the package installed as users install it: `npm pack` of this repository beside
 * the newest @pulumi/pulumi 3.x, installed by npm into a temp dir (the lockfile, and so the rest of the
 * suite, has the lowest of the package's range). The stack gets one copy of the SDK, its program
 * type-checks with its own TypeScript 5.x against the .d.ts the package ships (built by the
 * repository's compiler), and it deploys through the real engine, on the dynamic provider and on the
 * native plugin, with the CLI ensure-pulumi gives it: the pinned one, not the SDK's version.
 * Tests in this file share one stack and run in order.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
// @ts-expect-error: plain ESM script, shared with npm start
import { ensurePulumi, supportedCli } from "../../scripts/ensure-pulumi.mjs";
import { inventoryOfStack, ROOT, startStack, type E2eStack } from "./harness";

/** The newest @pulumi/pulumi on npm when this was written (`npm view @pulumi/pulumi version`). */
const NEWEST_SDK = "3.270.0";
/** The user's compiler: a TypeScript 5, whatever compiles this repository. */
const USER_TYPESCRIPT = "5.9.3";

let dir: string;
let s: E2eStack | undefined;
const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const versionIn = (pkg: string) => (JSON.parse(readFileSync(join(dir, "node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "pulumi-sandbox-consumer-"));
  cpSync(join(ROOT, "test", "e2e", "fixtures", "consumer"), dir, { recursive: true });
  const tarball = execFileSync("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", dir], { cwd: ROOT, encoding: "utf8" }).trim().split("\n").at(-1);
  const typesNode = (JSON.parse(readFileSync(join(ROOT, "node_modules", "@types", "node", "package.json"), "utf8")) as { version: string }).version;
  writeFileSync(join(dir, "package.json"), JSON.stringify({
    name: "consumer",
    private: true,
    main: "bin/index.js",
    dependencies: { "@pulumi/pulumi": NEWEST_SDK, "pulumi-sandbox": `file:./${tarball}` },
    devDependencies: { typescript: USER_TYPESCRIPT, "@types/node": typesNode },
  }, null, 2));
  // What a user runs; --prefer-offline takes what the npm cache has. No install script is needed.
  run("npm", ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]);
}, 600_000);

afterAll(async () => {
  await s?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a stack on the newest @pulumi/pulumi that installs the packed package", () => {
  test("has exactly one copy of @pulumi/pulumi, the stack's own", () => {
    const copies = run("npm", ["ls", "--all", "--parseable", "@pulumi/pulumi"]).trim().split("\n").filter((l) => l.endsWith(join("node_modules", "@pulumi", "pulumi")));
    expect(copies).toEqual([join(dir, "node_modules", "@pulumi", "pulumi")]);
    expect(versionIn("@pulumi/pulumi")).toBe(NEWEST_SDK);
    expect(run("npm", ["ls", "@pulumi/pulumi"])).toContain(`@pulumi/pulumi@${NEWEST_SDK} deduped`);
  });

  test("type-checks and compiles its program with TypeScript 5, skipLibCheck off, against the shipped .d.ts", () => {
    const tsc = join(dir, "node_modules", "typescript", "bin", "tsc");
    expect(run(process.execPath, [tsc, "--version"]).trim()).toBe(`Version ${USER_TYPESCRIPT}`);
    const compiled = spawnSync(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: dir, encoding: "utf8" });
    expect(compiled.status, `${compiled.stdout}${compiled.stderr}`).toBe(0);
  });

  test("the packed ensure-pulumi finds a supported CLI (here the pinned one), not one of the SDK's version, which the module proxy does not serve", async () => {
    const found = spawnSync(process.execPath, [join(dir, "node_modules", "pulumi-sandbox", "scripts", "ensure-pulumi.mjs")], { cwd: dir, encoding: "utf8", timeout: 60_000 });
    expect(found.status, found.stderr).toBe(0);
    expect(found.stdout.trim()).toBe(await ensurePulumi());
    const version = execFileSync(join(found.stdout.trim(), "pulumi"), ["version"], { encoding: "utf8", env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" } }).trim();
    expect(supportedCli(version), version).toBe(true);
  });

  test("up deploys it through the real engine: two resources on the dynamic provider, one on the native plugin", async () => {
    s = await startStack(dir, "consumer");
    await s.ok("up", "--yes", "--skip-preview");
    const inv = inventoryOfStack(s.emulator);
    const out = await s.outputs();
    expect(inv.sandboxes.map((x) => x.sandboxID)).toEqual([out.sandboxID]);
    expect(inv.volumes.map((v) => v.name).sort()).toEqual(["consumer-plugin-data", out.volumeName].sort());
    expect(inv.volumes.find((v) => v.name === "consumer-plugin-data")?.volumeID).toBe(out.pluginVolumeID);
    const types = (JSON.parse(await s.exported()) as { deployment: { resources: { type: string }[] } }).deployment.resources.map((r) => r.type);
    expect(types).toEqual(expect.arrayContaining(["pulumi-nodejs:dynamic/sandbox:Volume", "pulumi-nodejs:dynamic/sandbox:Sandbox", "sandbox:index:Volume"]));
  });

  test("a preview then finds nothing to change, and destroy removes everything", async () => {
    await s!.ok("preview", "--expect-no-changes");
    await s!.ok("destroy", "--yes", "--skip-preview");
    const inv = inventoryOfStack(s!.emulator);
    expect({ sandboxes: inv.sandboxes.length, volumes: inv.volumes.length }).toEqual({ sandboxes: 0, volumes: 0 });
  });
});
