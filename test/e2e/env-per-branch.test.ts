/**
 * examples/env-per-branch as a user runs it: `node envs.ts emulator` in one process, the other
 * commands as processes of their own, on the default file backend (ENVS_DIR, a temp dir here). Three
 * environments made at once, one pruned, the rest removed; after each step, the service (the
 * emulator's API), the backend's stacks and the program's stack config files say what is left.
 * Tests share the environments and run in order.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT } from "./harness";
import { describeLeaks, filesUnder, findLeaks, type Place, type SecretValue } from "./secrets";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { ensurePulumi } from "../../scripts/ensure-pulumi.mjs";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { pulumiEnv } from "../../scripts/pulumi-run.mjs";

const EXAMPLE = join(ROOT, "examples", "env-per-branch");
const PROGRAM = join(EXAMPLE, "environment");
const PROJECT = "sandbox-env-per-branch";
/** Branch-like names; the stacks are named after them (`/` → `-`). Prefixed so a user's own stacks in the program dir are never touched. */
const STACKS = ["e2e-ana", "e2e-feature-login", "e2e-main"];

const envsDir = mkdtempSync(join(tmpdir(), "pulumi-sandbox-envs-"));
let env: NodeJS.ProcessEnv;
let emulator: ChildProcess | undefined;
let service: { apiUrl: string; apiKey: string; accessToken: string };
let made: Record<string, Record<string, string>> = {};
/** What the secret scan reads (the commands' output, the config files while they exist) and looks for. */
const places: Place[] = [];
const secrets: SecretValue[] = [];

interface Run {
  code: number | null;
  stdout: string;
  output: string;
}

function envs(...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(EXAMPLE, "envs.ts"), ...args], { cwd: EXAMPLE, env });
    let stdout = "";
    let output = "";
    child.stdout.on("data", (d) => ((stdout += d), (output += d)));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => {
      places.push({ where: `the output of \`envs ${args.join(" ")}\``, text: output });
      resolve({ code, stdout, output });
    });
  });
}

async function ok(...args: string[]): Promise<Run> {
  const run = await envs(...args);
  if (run.code !== 0) throw new Error(`envs ${args.join(" ")} exited ${run.code}:\n${run.output}`);
  return run;
}

/** The `up <stack>: role=id ...` lines: stack → role → sandbox ID. */
function printedIDs(stdout: string): Record<string, Record<string, string>> {
  const lines = [...stdout.matchAll(/^up (\S+): (.*)$/gm)];
  return Object.fromEntries(lines.map(([, stack, ids]) => [stack, Object.fromEntries(ids!.split(" ").map((pair) => pair.split("=")))]));
}

/** What the service has: every sandbox, with the environment its metadata names. */
async function sandboxesOnService(): Promise<Map<string, string | undefined>> {
  const res = await fetch(`${service.apiUrl}/v2/sandboxes?limit=100`, { headers: { "X-API-Key": service.apiKey } });
  expect(res.status).toBe(200);
  const listed = (await res.json()) as { sandboxID: string; metadata?: Record<string, string> }[];
  return new Map(listed.map((s) => [s.sandboxID, s.metadata?.environment]));
}

/** The stacks the file backend holds (Pulumi keeps `.bak` copies of removed ones: those are not stacks). */
function backendStacks(): string[] {
  const dir = join(envsDir, "state", ".pulumi", "stacks", PROJECT);
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -".json".length)).sort() : [];
}

const configFiles = () => readdirSync(PROGRAM).filter((f) => STACKS.some((s) => f === `Pulumi.${s}.yaml`)).sort();

/** Starts `node envs.ts emulator` and waits for its endpoints file. */
async function startEmulator(): Promise<void> {
  const child = spawn(process.execPath, [join(EXAMPLE, "envs.ts"), "emulator"], { cwd: EXAMPLE, env });
  emulator = child;
  let output = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d) => ((output += d), output.includes("emulator at ") && resolve()));
    child.stderr.on("data", (d) => (output += d));
    child.on("close", (code) => reject(new Error(`envs emulator exited ${code} before it was ready:\n${output}`)));
  });
  service = JSON.parse(readFileSync(join(envsDir, "emulator.json"), "utf8"));
  secrets.push({ value: service.apiKey, label: "the emulator's apiKey" }, { value: service.accessToken, label: "the emulator's accessToken" });
}

/** The in-sandbox API's token of a secure sandbox, for the scan (the service's detail view has it). */
async function registerToken(sandboxID: string): Promise<void> {
  const res = await fetch(`${service.apiUrl}/sandboxes/${sandboxID}`, { headers: { "X-API-Key": service.apiKey } });
  expect(res.status).toBe(200);
  const token = ((await res.json()) as { envdAccessToken?: string }).envdAccessToken;
  if (token) secrets.push({ value: token, label: `the envdAccessToken of sandbox ${sandboxID}` });
}

beforeAll(async () => {
  const binDir: string = await ensurePulumi();
  // The default backend (file://$ENVS_DIR/state) and the emulator's endpoints: no backend or E2B_* variable is set.
  const { PULUMI_BACKEND_URL: _backend, E2B_API_KEY: _key, E2B_API_URL: _url, E2B_DOMAIN: _domain, ...rest } = pulumiEnv({ binDir, stateDir: envsDir });
  env = { ...rest, ENVS_DIR: envsDir };
  await startEmulator();
}, 120_000);

afterAll(async () => {
  if (emulator && emulator.exitCode === null) {
    const stopped = new Promise((resolve) => emulator!.once("close", resolve));
    emulator.kill("SIGTERM");
    await stopped;
  }
  // A failed run may leave config files in the program's folder (gitignored); the backend goes with the temp dir.
  for (const file of configFiles()) rmSync(join(PROGRAM, file), { force: true });
  rmSync(envsDir, { recursive: true, force: true });
}, 60_000);

// Node runs envs.ts by stripping its types, and the program's tsconfig has `noCheck` (ts-node would
// type-check it at every `up` of every environment): the types are checked here, once.
test("the driver (TypeScript 7) and the environment program (5.9, as ts-node runs it) type-check", () => {
  const tsc = (compiler: string, ...args: string[]) => execFileSync(process.execPath, [join(ROOT, "node_modules", compiler), ...args], { cwd: ROOT, encoding: "utf8" });
  expect(tsc("@typescript/native/bin/tsc", "-p", join(EXAMPLE, "tsconfig.json"))).toBe("");
  expect(tsc("typescript/bin/tsc", "-p", join(PROGRAM, "tsconfig.json"), "--noCheck", "false", "--noEmit")).toBe("");
});

test("up makes three environments at once and prints each one's sandbox IDs, all on the service", async () => {
  const run = await ok("up", "e2e-main", "e2e-feature/login", "e2e-ana", "--parallel", "3", "--sandboxes", "app,db");
  made = printedIDs(run.stdout);
  expect(Object.keys(made).sort()).toEqual(STACKS);
  const ids = Object.values(made).flatMap((roles) => Object.values(roles));
  expect(ids).toHaveLength(6);
  expect(new Set(ids).size).toBe(6);
  const onService = await sandboxesOnService();
  expect([...onService.keys()].sort()).toEqual([...ids].sort());
  for (const [stack, roles] of Object.entries(made)) {
    expect(Object.keys(roles).sort()).toEqual(["app", "db"]);
    for (const id of Object.values(roles)) expect(onService.get(id)).toBe(stack);
  }
  expect(backendStacks()).toEqual(STACKS);
  for (const id of ids) await registerToken(id);
  for (const file of configFiles()) places.push({ where: `the config file ${file}`, text: readFileSync(join(PROGRAM, file), "utf8") });
  // At once: every update began before the first one ended (the backend's history, whole seconds).
  const spans = STACKS.map((stack) => {
    const dir = join(envsDir, "state", ".pulumi", "history", PROJECT, stack);
    const [file] = readdirSync(dir).filter((f) => f.endsWith(".history.json"));
    return JSON.parse(readFileSync(join(dir, file!), "utf8")) as { startTime: number; endTime: number };
  });
  expect(Math.max(...spans.map((s) => s.startTime))).toBeLessThan(Math.min(...spans.map((s) => s.endTime)));
});

test("list shows every environment with the IDs up printed", async () => {
  const run = await ok("list");
  for (const [stack, roles] of Object.entries(made)) expect(run.stdout).toContain(`${stack}: app=${roles.app} db=${roles.db}`);
});

test("prune --keep removes the environment not named: its sandboxes, its stack and its config file", async () => {
  const run = await ok("prune", "--keep", "e2e-main", "e2e-ana");
  expect(run.stdout).toContain("removed e2e-feature-login: 3 resources destroyed, stack removed");
  const onService = await sandboxesOnService();
  const kept = [...Object.values(made["e2e-main"]!), ...Object.values(made["e2e-ana"]!)];
  expect([...onService.keys()].sort()).toEqual(kept.sort());
  expect(backendStacks()).toEqual(["e2e-ana", "e2e-main"]);
  expect(configFiles()).toEqual(["Pulumi.e2e-ana.yaml", "Pulumi.e2e-main.yaml"]);
});

test("prune --merged removes the merged branches' environments, ignoring branches that had none; nothing is left", async () => {
  const run = await ok("prune", "--merged", "e2e-ana", "e2e-main", "e2e-stale-branch");
  expect(run.stdout).toContain("removed e2e-ana: 3 resources destroyed, stack removed");
  expect(run.stdout).toContain("removed e2e-main: 3 resources destroyed, stack removed");
  expect((await sandboxesOnService()).size).toBe(0);
  expect(backendStacks()).toEqual([]);
  expect(configFiles()).toEqual([]);
  expect((await ok("list")).stdout).toContain("no environments");
});

test("down of an environment that is not there names it and changes nothing", async () => {
  const run = await envs("down", "e2e-feature/login");
  expect(run.code).toBe(2);
  expect(run.output).toContain("envs: no such environment: e2e-feature-login (node envs.ts list shows them)");
});

test("no key or token is in plain text in any output, config file or file the backend kept", () => {
  // The emulator's key and token, and the envdAccessToken of each of the six (secure) sandboxes.
  expect(secrets).toHaveLength(8);
  const found = findLeaks(secrets, [...places, ...filesUnder(join(envsDir, "state"), "the backend's file")]);
  expect(describeLeaks(found)).toBe(describeLeaks([]));
});
