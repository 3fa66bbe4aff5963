/**
 * `pulumi package get-schema` on the plugin, with the real CLI (docs/installation-configuration.md tells
 * users to run it, and `pulumi package add` takes the same path): the schema the plugin serves is
 * schema.json, the package's documented contract. Runs in a PULUMI_HOME of its own with no network use
 * (registry resolution and plugin downloads are off, scripts/pulumi-run.mjs).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { PackageSchema } from "../../provider/schema/build";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { ensurePulumi } from "../../scripts/ensure-pulumi.mjs";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { pulumiEnv, runPulumi } from "../../scripts/pulumi-run.mjs";
import { CLI_TIMEOUT_MS, ROOT } from "./harness";

let home: string;
let env: Record<string, string>;

beforeAll(async () => {
  const binDir: string = await ensurePulumi();
  home = mkdtempSync(join(tmpdir(), "pulumi-sandbox-get-schema-"));
  mkdirSync(join(home, "state"));
  env = pulumiEnv({ binDir, stateDir: join(home, "state"), extra: { PULUMI_HOME: home } });
}, 300_000);

afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

test("pulumi package get-schema on bin/pulumi-resource-sandbox prints schema.json's package: name, version, config, resources and their inputs, functions", async () => {
  const res = await runPulumi(["package", "get-schema", join(ROOT, "bin", "pulumi-resource-sandbox")], { cwd: home, env, timeoutMs: CLI_TIMEOUT_MS });
  expect(res.code, res.output).toBe(0);
  const served = JSON.parse(res.stdout) as PackageSchema;
  const committed = JSON.parse(readFileSync(join(ROOT, "schema.json"), "utf8")) as PackageSchema;
  expect(served.name).toBe("sandbox");
  expect(served.version).toBe(committed.version);
  expect(served.config).toEqual(committed.config);
  const inputs = (s: PackageSchema) => Object.fromEntries(Object.entries(s.resources).map(([token, r]) => [token, Object.keys(r.inputProperties).sort()]));
  expect(inputs(served)).toEqual(inputs(committed));
  expect(Object.keys(served.resources).length).toBeGreaterThanOrEqual(6);
  expect(Object.keys(served.functions).sort()).toEqual(Object.keys(committed.functions).sort());
  expect(served.types).toEqual(committed.types);
});
