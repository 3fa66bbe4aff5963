/**
 * The plugin as Pulumi's package commands load it (`pulumi package get-schema`, `pulumi package add`),
 * serving schema.json, the package's documented contract:
 * - the executable, `bin/pulumi-resource-sandbox`, with the real CLI, in a PULUMI_HOME of its own with no
 *   network use (registry resolution and plugin downloads are off, scripts/pulumi-run.mjs);
 * - the folder `plugin/` (its PulumiPlugin.yaml), started as the Node.js language host starts a plugin
 *   folder: `node <@pulumi/pulumi/cmd/run-plugin, resolved from the folder> <folder> <engine args>`
 *   (RunPlugin of pulumi/pulumi's sdk/nodejs/cmd/pulumi-language-nodejs). The CLI cannot do that step
 *   here: the Node host this repository builds offline (sdk/v3 v3.68.0) answers RunPlugin "not supported".
 */
import { spawn, type ChildProcess } from "node:child_process";
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
let folderPlugin: ChildProcess | undefined;
const committed = JSON.parse(readFileSync(join(ROOT, "schema.json"), "utf8")) as PackageSchema;

/** What a served schema must share with schema.json (the CLI re-encodes it, so not byte for byte). */
function expectCommitted(served: PackageSchema): void {
  expect(served.name).toBe("sandbox");
  expect(served.version).toBe(committed.version);
  expect(served.config).toEqual(committed.config);
  const inputs = (s: PackageSchema) => Object.fromEntries(Object.entries(s.resources).map(([token, r]) => [token, Object.keys(r.inputProperties).sort()]));
  expect(inputs(served)).toEqual(inputs(committed));
  expect(Object.keys(served.resources).length).toBeGreaterThanOrEqual(6);
  expect(Object.keys(served.functions).sort()).toEqual(Object.keys(committed.functions).sort());
  expect(served.types).toEqual(committed.types);
}

beforeAll(async () => {
  const binDir: string = await ensurePulumi();
  home = mkdtempSync(join(tmpdir(), "pulumi-sandbox-get-schema-"));
  mkdirSync(join(home, "state"));
  env = pulumiEnv({ binDir, stateDir: join(home, "state"), extra: { PULUMI_HOME: home } });
}, 300_000);

afterAll(() => {
  folderPlugin?.kill("SIGKILL");
  if (home) rmSync(home, { recursive: true, force: true });
});

test("pulumi package get-schema on bin/pulumi-resource-sandbox prints schema.json's package: name, version, config, resources and their inputs, functions", async () => {
  const res = await runPulumi(["package", "get-schema", join(ROOT, "bin", "pulumi-resource-sandbox")], { cwd: home, env, timeoutMs: CLI_TIMEOUT_MS });
  expect(res.code, res.output).toBe(0);
  expectCommitted(JSON.parse(res.stdout) as PackageSchema);
});

/** Starts `plugin/` as the Node host does; resolves with the port it prints on its first stdout line. */
function startFolderPlugin(folder: string): Promise<number> {
  const runPlugin = require.resolve("@pulumi/pulumi/cmd/run-plugin", { paths: [folder] });
  const child = spawn(process.execPath, [runPlugin, folder, "127.0.0.1:1"], { cwd: home, stdio: ["ignore", "pipe", "pipe"] });
  folderPlugin = child;
  let out = "";
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (d) => {
      out += d;
      const line = /^(\d+)\n/.exec(out);
      if (line) resolve(Number(line[1]));
    });
    child.stderr.on("data", (d) => (out += d));
    child.on("exit", (code) => reject(new Error(`the plugin folder exited (${code}) before printing its port:\n${out}`)));
  });
}

test("plugin/ (PulumiPlugin.yaml, runtime nodejs), started as the Node host starts a plugin folder, serves the same schema", async () => {
  const folder = join(ROOT, "plugin");
  const project = readFileSync(join(folder, "PulumiPlugin.yaml"), "utf8");
  expect(project).toMatch(/^runtime:\n  name: nodejs\n/m);
  const port = await startFolderPlugin(folder);
  const grpc = require("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
  const { ResourceProviderClient } = require("@pulumi/pulumi/proto/provider_grpc_pb");
  const { GetSchemaRequest } = require("@pulumi/pulumi/proto/provider_pb");
  const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  try {
    const schema = await new Promise<string>((resolve, reject) =>
      client.getSchema(new GetSchemaRequest(), (err: Error | null, resp: { getSchema(): string }) => (err ? reject(err) : resolve(resp.getSchema()))),
    );
    expectCommitted(JSON.parse(schema) as PackageSchema);
  } finally {
    client.close();
  }
}, 60_000);
