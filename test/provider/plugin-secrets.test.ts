/**
 * What the native plugin hides from a Sandbox's logs, messages and stored output: exactly what the
 * program marked secret, as the dynamic provider does (provider/plugin/adapter.ts). Driven over gRPC
 * as the engine drives it, with the program's inputs as a generated SDK or the YAML host sends them:
 * `envVars` and `provision` as written, only the program's own secret wrapped inside (the schema marks
 * no input secret). A plain `DEBUG: "1"` or `user: "user"` must then hide nothing else: not the "1" of
 * `provision 1/1`, an exit code, a sandbox ID or `/home/user`. State still holds both inputs secret.
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { startHost, type HostError, type ProviderHost } from "./host";
import { makeProject, REPO, type Project } from "./project";

type Obj = Record<string, unknown>;

const URN = "urn:pulumi:dev::proj::sandbox:index:Sandbox::box";
const TOKEN = "plugin-secret-token-5d2e8a";
const ECHO = 'echo "run-$DEBUG-ok in $HOME, token $TOKEN"';
const FAILING = 'echo "debug $DEBUG"; exit 1';

let project: Project;
let emu: Emulator;
let host: ProviderHost;

const wrap = (value: unknown) => ({ [specialSigKey]: specialSecretSig, value });
const isSecret = (value: unknown) => (value as Obj | null)?.[specialSigKey] === specialSecretSig;
const secretKeysOf = (props: Obj) => Object.keys(props).filter((k) => isSecret(props[k])).sort();
/** A value with its secret wrapper, if any, taken off. */
const plain = (value: unknown) => (isSecret(value) ? (value as Obj).value : value);

/** The inputs as the program sends them: its one secret (TOKEN) wrapped, nothing else. */
function programInputs(provision: Obj, state: "running" | "paused"): Obj {
  return { templateID: "base", timeoutSeconds: 600, state, envVars: { DEBUG: "1", TOKEN: wrap(TOKEN) }, provision };
}

beforeAll(async () => {
  project = makeProject();
  const bin = join(project.dir, "node_modules", "pulumi-sandbox", "bin");
  mkdirSync(bin);
  copyFileSync(join(REPO, "bin", "pulumi-resource-sandbox"), join(bin, "pulumi-resource-sandbox"));
  emu = await createEmulator({});
  const env = { E2B_API_KEY: emu.apiKey, E2B_API_URL: emu.apiUrl, E2B_SANDBOX_URL: emu.sandboxUrl };
  // The engine address given is not served: the plugin's log lines go to its stderr.
  host = await startHost({ cwd: project.dir, project: "proj", env, plugin: join(bin, "pulumi-resource-sandbox") });
  await host.configure({});
}, 120_000);

afterAll(async () => {
  await host?.close();
  await emu?.close();
  project?.remove();
});

test("a plain value hides nothing; the program's secret is hidden everywhere; state keeps envVars, provision and __secrets secret", async () => {
  const { inputs, failures } = await host.check(URN, {}, programInputs({ commands: [{ command: ECHO, user: "user" }] }, "paused"));
  expect(failures).toEqual([]);
  const { id, properties } = await host.create(URN, inputs);
  const log = host.stderr();
  expect(log).toContain(`[Sandbox box] provision 1/1: $ ${ECHO}\n`);
  expect(log).toContain("[Sandbox box] provision 1/1 | run-1-ok in /home/user, token [redacted]\n");
  expect(log).toMatch(/\[Sandbox box\] provision 1\/1: exit code 0 in \d+\.\d s\n/);
  expect(log).toContain(`[Sandbox box] pausing sandbox ${id}\n`);
  expect(plain(properties.provisionResults)).toEqual([
    expect.objectContaining({ command: ECHO, exitCode: 0, stdoutTail: "run-1-ok in /home/user, token [redacted]\n" }),
  ]);
  // State holds the inputs the program did not mark encrypted all the same, with the program's secrets beside them.
  expect(secretKeysOf(inputs)).toEqual(["__secrets", "envVars", "provision"]);
  expect(plain(inputs.__secrets)).toEqual([TOKEN]);
  expect(secretKeysOf(properties)).toEqual(expect.arrayContaining(["__secrets", "envVars", "provision", "provisionResults"]));

  // A failing run, from the state as stored: the message names the sandbox, the command and its exit code as they are.
  const news = programInputs({ commands: [{ command: FAILING, user: "user" }] }, "running");
  const changed = await host.check(URN, inputs, news);
  expect(plain(changed.inputs.__secrets)).toEqual([TOKEN]);
  const err = (await host.update(id, URN, properties, changed.inputs).then(() => undefined, (x: unknown) => x)) as HostError;
  expect(err?.initFailure, String(err)).toBeDefined();
  expect(err.message).toContain(`Sandbox ${id}: provisioning command 1 \`${FAILING}\` exited with code 1; last output:\ndebug 1\n`);
  expect(host.stderr()).toContain(`[Sandbox box] resuming sandbox ${id} for 600 s\n`);
  const recorded = err.initFailure!.properties;
  expect(secretKeysOf(recorded)).toEqual(expect.arrayContaining(["__secrets", "provisionResults"]));
  expect(plain(recorded.__secrets)).toEqual([TOKEN]);

  // A refresh and a delete take the program's secrets from the state too.
  const read = await host.read(id, URN, recorded);
  expect(plain(read.properties.__secrets)).toEqual([TOKEN]);
  await host.delete(id, URN, read.properties);
  expect(emu.state.sandboxes()).toEqual([]);
  expect(host.stderr()).not.toContain(TOKEN);
});

test("state an older plugin wrote (no __secrets) hides every value that arrives secret, as that plugin did", async () => {
  const { inputs } = await host.check(URN, {}, programInputs({ commands: [{ command: "echo older-state" }] }, "running"));
  const { __secrets: _dropped, ...older } = inputs;
  const { id, properties } = await host.create(URN, older);
  expect(properties.__secrets).toBeUndefined();
  expect(plain(properties.provisionResults)).toEqual([expect.objectContaining({ command: "[redacted]", exitCode: 0, stdoutTail: "older-state\n" })]);
  await host.delete(id, URN, properties);
});
