/**
 * Bad input fails at `pulumi preview`, before any call to the service: the real CLI runs the
 * any-resource fixture (one Template, Volume or Sandbox with the args of stack config `args`), and for
 * each invalid input the preview must exit non-zero, print the exact rule of provider/specs naming the
 * field path, report no other failure, and leave the emulator with zero calls.
 *
 * Cases run on two stacks at once (the machine has 2 cores; the engine is the cost: ~2 s a preview
 * on an idle machine, 4 times that on a busy one).
 * Each preview passes `--config kind=… --config args=…`, so a stack is reused without extra commands.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startStack, type CliResult, type E2eStack } from "./harness";
import { findLeaks } from "./secrets";

const FIXTURE = join(__dirname, "fixtures", "any-resource");
type Kind = "Template" | "Volume" | "Sandbox";

interface Case {
  kind: Kind;
  /** What is wrong, for the test's name. */
  what: string;
  args: Record<string, unknown>;
  /** Every failure the preview must report, exactly: `<path>: <rule>`. */
  failures: string[];
}

const FROM = "FROM e2bdev/base:latest\n";
const TPL = { dockerfile: FROM };
const SBX = { templateID: "base" };
const cmd = (over: Record<string, unknown>) => ({ ...SBX, provision: { commands: [{ command: "true", ...over }] } });
const mounts = (...paths: string[]) => ({ ...SBX, volumeMounts: paths.map((path, i) => ({ name: `vol${i}`, path })) });
const CLEAN_PATH = "must be a clean path: no '.', '..', empty segments or trailing '/'";
const ENV_NAME = "environment variable names must match ^[A-Za-z_][A-Za-z0-9_]*$";

const CASES: Case[] = [
  // Template
  { kind: "Template", what: "dockerfile missing", args: { public: false }, failures: ["dockerfile: is required"] },
  { kind: "Template", what: "dockerfile not a string", args: { dockerfile: 42 }, failures: ["dockerfile: must be a string holding the Dockerfile's text"] },
  { kind: "Template", what: "Dockerfile without FROM", args: { dockerfile: "RUN echo hi\n" }, failures: ["dockerfile: must contain a FROM instruction (the base image)"] },
  { kind: "Template", what: "alias with capitals and a space", args: { ...TPL, alias: "My App" }, failures: ["alias: may contain only lowercase letters, digits, '_' and '-' (pattern ^[a-z0-9_-]+$)"] },
  { kind: "Template", what: "cpuCount 0", args: { ...TPL, cpuCount: 0 }, failures: ["cpuCount: must be at least 1"] },
  { kind: "Template", what: "cpuCount 3 (odd)", args: { ...TPL, cpuCount: 3 }, failures: ["cpuCount: must be 1 or an even number"] },
  { kind: "Template", what: "cpuCount 64", args: { ...TPL, cpuCount: 64 }, failures: ["cpuCount: must be at most 32"] },
  { kind: "Template", what: "cpuCount as a string", args: { ...TPL, cpuCount: "2" }, failures: ["cpuCount: must be a number"] },
  { kind: "Template", what: "memoryMB 64", args: { ...TPL, memoryMB: 64 }, failures: ["memoryMB: must be at least 128 (MiB)"] },
  { kind: "Template", what: "memoryMB 1025 (odd)", args: { ...TPL, memoryMB: 1025 }, failures: ["memoryMB: must be an even number of MiB"] },
  { kind: "Template", what: "buildTimeoutSeconds 0", args: { ...TPL, buildTimeoutSeconds: 0 }, failures: ["buildTimeoutSeconds: must be at least 1 second"] },
  {
    kind: "Template", what: "unknown top-level property (dockerFile)", args: { ...TPL, dockerFile: FROM },
    failures: ["dockerFile: unknown property of Template; valid properties are: dockerfile, alias, teamID, startCmd, readyCmd, cpuCount, memoryMB, public, buildTimeoutSeconds"],
  },
  // Volume
  { kind: "Volume", what: "name with a space", args: { name: "my volume" }, failures: ["name: may contain only letters, digits, '_' and '-' (pattern ^[a-zA-Z0-9_-]+$)"] },
  {
    kind: "Volume", what: "name empty (both rules it breaks)", args: { name: "" },
    failures: ["name: must not be empty", "name: may contain only letters, digits, '_' and '-' (pattern ^[a-zA-Z0-9_-]+$)"],
  },
  { kind: "Volume", what: "unknown property (sizeGB)", args: { sizeGB: 10 }, failures: ["sizeGB: unknown property of Volume; valid properties are: name"] },
  // Sandbox: scalars
  { kind: "Sandbox", what: "templateID missing", args: { timeout: 60 }, failures: ["templateID: is required"] },
  {
    kind: "Sandbox", what: "templateId (wrong case): unknown, and templateID missing", args: { templateId: "base" },
    failures: [
      "templateId: unknown property of Sandbox; valid properties are: templateID, timeout, autoPause, autoResume, secure, allowInternetAccess, network, metadata, envVars, mcp, volumeMounts, provision",
      "templateID: is required",
    ],
  },
  { kind: "Sandbox", what: "timeout 0", args: { ...SBX, timeout: 0 }, failures: ["timeout: must be greater than 0 (the service refuses 0)"] },
  { kind: "Sandbox", what: "timeout -1", args: { ...SBX, timeout: -1 }, failures: ["timeout: must be greater than 0 (the service refuses 0)"] },
  { kind: "Sandbox", what: "timeout 100000", args: { ...SBX, timeout: 100_000 }, failures: ["timeout: must be at most 86400 (24 hours)"] },
  { kind: "Sandbox", what: "timeout as a string", args: { ...SBX, timeout: "60" }, failures: ["timeout: must be a number of seconds"] },
  // Sandbox: maps
  { kind: "Sandbox", what: "envVars name starting with a digit", args: { ...SBX, envVars: { "1BAD": "x" } }, failures: [`envVars.1BAD: ${ENV_NAME}`] },
  { kind: "Sandbox", what: "envVars value as a number", args: { ...SBX, envVars: { PORT: 8080 } }, failures: ["envVars.PORT: environment variable values must be strings"] },
  {
    kind: "Sandbox", what: "metadata with the reserved prefix", args: { ...SBX, metadata: { "pulumi-sandbox.resource": "x" } },
    failures: ["metadata.pulumi-sandbox.resource: metadata names must not start with the reserved prefix 'pulumi-sandbox.'"],
  },
  // Sandbox: network
  { kind: "Sandbox", what: "network.allowPublic (unknown nested property)", args: { ...SBX, network: { allowPublic: true } }, failures: ['network: unknown property "allowPublic"'] },
  {
    kind: "Sandbox", what: "allowPublicTraffic false without secure", args: { ...SBX, network: { allowPublicTraffic: false } },
    failures: ["network.allowPublicTraffic: false requires secure: true (the service refuses it otherwise)"],
  },
  {
    kind: "Sandbox", what: "denyOut with a domain", args: { ...SBX, network: { denyOut: ["10.0.0.0/8", "example.com"] } },
    failures: ["network.denyOut[1]: must be a CIDR or an IPv4 address (domains are not allowed here)"],
  },
  // Sandbox: volume mounts
  { kind: "Sandbox", what: "volumeMounts not a list", args: { ...SBX, volumeMounts: { name: "v", path: "/data" } }, failures: ["volumeMounts: must be a list of {name, path}"] },
  {
    kind: "Sandbox", what: "volumeMounts[0].mountPath (unknown nested property)", args: { ...SBX, volumeMounts: [{ name: "v", mountPath: "/data" }] },
    failures: ["volumeMounts[0].path: is required", 'volumeMounts[0]: unknown property "mountPath"'],
  },
  { kind: "Sandbox", what: "mount path not absolute", args: mounts("/data", "data"), failures: ["volumeMounts[1].path: must be an absolute path (start with /)"] },
  { kind: "Sandbox", what: "mount path with '..'", args: mounts("/data/../x"), failures: [`volumeMounts[0].path: ${CLEAN_PATH}`] },
  { kind: "Sandbox", what: "mount path with a trailing '/'", args: mounts("/data/"), failures: [`volumeMounts[0].path: ${CLEAN_PATH}`] },
  { kind: "Sandbox", what: "mount path repeated", args: mounts("/data", "/cache", "/data"), failures: ["volumeMounts: mount paths must be unique"] },
  {
    kind: "Sandbox", what: "mount of a volume name with a '/'", args: { ...SBX, volumeMounts: [{ name: "team/data", path: "/data" }] },
    failures: ["volumeMounts[0].name: must be a volume name (pattern ^[a-zA-Z0-9_-]+$)"],
  },
  // Sandbox: provision
  { kind: "Sandbox", what: "provision.commands empty", args: { ...SBX, provision: { commands: [] } }, failures: ["provision.commands: must hold at least one command"] },
  { kind: "Sandbox", what: "provision command empty", args: cmd({ command: "" }), failures: ["provision.commands[0].command: must not be empty"] },
  { kind: "Sandbox", what: "provision command timeoutSeconds 0", args: cmd({ timeoutSeconds: 0 }), failures: ["provision.commands[0].timeoutSeconds: must be at least 1"] },
  { kind: "Sandbox", what: "provision cwd relative", args: cmd({ cwd: "tmp" }), failures: ["provision.commands[0].cwd: must be an absolute path"] },
  { kind: "Sandbox", what: "provision envs name with a '-'", args: cmd({ envs: { "bad-key": "x" } }), failures: [`provision.commands[0].envs.bad-key: ${ENV_NAME}`] },
  { kind: "Sandbox", what: "provision command property timeout (unknown)", args: cmd({ timeout: 5 }), failures: ['provision.commands[0]: unknown property "timeout"'] },
  {
    kind: "Sandbox", what: 'provision onFailure "ignore"', args: { ...SBX, provision: { commands: [{ command: "true" }], onFailure: "ignore" } },
    failures: ['provision.onFailure: must be "keep" or "delete"'],
  },
];

/** Valid args of each kind: the same previews succeed, so a failure above is the input's doing. */
const VALID: Record<Kind, Record<string, unknown>> = {
  Template: { ...TPL, alias: "ok-alias", cpuCount: 2, memoryMB: 1024, buildTimeoutSeconds: 60 },
  Volume: { name: "ok_volume-1" },
  Sandbox: {
    ...SBX, timeout: 60, secure: true, network: { allowPublicTraffic: false, allowOut: ["example.com"], denyOut: ["0.0.0.0/0"] },
    envVars: { OK_1: "x" }, metadata: { team: "a" }, volumeMounts: [{ name: "v", path: "/data" }, { name: "w", path: "/" }],
    provision: { commands: [{ command: "true", cwd: "/tmp", user: "root", envs: { _K: "v" }, timeoutSeconds: 5 }], onFailure: "delete" },
  },
};

/** Two stacks, each with its own emulator; a case borrows one for its preview. */
const idle: E2eStack[] = [];
const waiting: ((s: E2eStack) => void)[] = [];
const stacks: E2eStack[] = [];

async function preview(kind: Kind, args: Record<string, unknown>): Promise<{ res: CliResult; calls: number }> {
  const s = idle.pop() ?? (await new Promise<E2eStack>((resolve) => waiting.push(resolve)));
  try {
    const res = await s.pulumi("preview", "--config", `kind=${kind}`, "--config", `args=${JSON.stringify(args)}`);
    return { res, calls: s.emulator.calls().length };
  } finally {
    const next = waiting.shift();
    if (next) next(s);
    else idle.push(s);
  }
}

/**
 * The check failures the engine reported, once each (it prints each twice: as it goes, then under
 * Diagnostics), sorted: zod's order of issues is not part of the contract.
 */
function reportedFailures(output: string): string[] {
  const lines = output.split("\n").map((l) => /has a problem: (.*)$/.exec(l)?.[1]).filter((l): l is string => l !== undefined);
  return [...new Set(lines)].sort();
}

/** A case waits for a free stack: up to 5 run at once (vitest's default) on 2 stacks, on a busy machine. */
const CASE_TIMEOUT_MS = 120_000;

beforeAll(async () => {
  stacks.push(...(await Promise.all([startStack(FIXTURE, "bad-input-a"), startStack(FIXTURE, "bad-input-b")])));
  idle.push(...stacks);
}, 120_000);

afterAll(async () => {
  await Promise.all(stacks.map((s) => s.close()));
});

describe.concurrent("invalid input fails preview with the rule and the field path, and no call", () => {
  for (const c of CASES) {
    test(`${c.kind}: ${c.what}`, async ({ expect }) => {
      const { res, calls } = await preview(c.kind, c.args);
      expect(res.code, res.output).not.toBe(0);
      expect(reportedFailures(res.output), res.output).toEqual([...c.failures].sort());
      expect(calls).toBe(0);
    }, CASE_TIMEOUT_MS);
  }

  for (const [kind, args] of Object.entries(VALID) as [Kind, Record<string, unknown>][]) {
    test(`${kind}: valid args preview cleanly (the control)`, async ({ expect }) => {
      const { res, calls } = await preview(kind, args);
      expect(res.code, res.output).toBe(0);
      expect(res.output).toMatch(new RegExp(`\\+\\s+pulumi-nodejs:dynamic(/sandbox)?:${kind} subject create`));
      expect(reportedFailures(res.output)).toEqual([]);
      expect(calls).toBe(0);
    }, CASE_TIMEOUT_MS);
  }
});

/** Runs `body` on a fresh stack that `body` closes itself (close() is what is tested); closes it if `body` fails first. */
async function withOwnStack(name: string, body: (s: E2eStack) => Promise<void>): Promise<void> {
  const s = await startStack(FIXTURE, name);
  let closed = false;
  const close = s.close;
  s.close = () => ((closed = true), close());
  try {
    await body(s);
  } finally {
    if (!closed) await close().catch(() => undefined);
  }
}

describe("secrets in bad input", () => {
  test("a secret input of the wrong type is not echoed in the error", () => withOwnStack("bad-input-secret", async (s) => {
    const envVars = s.secret("env-vars-given-as-a-string-5e0b", "envVars given as a string");
    const provision = s.secret("provision-given-as-a-string-91c2", "provision given as a string");
    // Secret config, so the values are neither on a command line nor in clear in the stack's file.
    await s.ok("config", "set", "--secret", "args", JSON.stringify({ ...SBX, envVars, provision }));
    const res = await s.pulumi("preview", "--config", "kind=Sandbox");
    expect(res.code, res.output).not.toBe(0);
    expect(res.output).toContain("has a problem: envVars: must be an object of environment variable (string to string)");
    expect(res.output).toContain("has a problem: provision: ");
    expect(s.emulator.calls()).toEqual([]);
    // close() scans everything the CLI printed and kept; its error names each leak and where.
    await expect(s.close()).resolves.toBeUndefined();
  }));

  test("the scan can fail: a secret the CLI printed or Pulumi kept is reported, by label and place", () => withOwnStack("bad-input-canary", async (s) => {
    const canary = s.secret("scan-canary-3f9a77d1", "the canary");
    // On purpose, in clear: plain config (kept in the stack's file, printed by `get`) and a volume's name (kept in state).
    await s.ok("config", "set", "canary", canary);
    await s.ok("config", "get", "canary");
    await s.ok("up", "--yes", "--skip-preview", "--config", "kind=Volume", "--config", `args=${JSON.stringify({ name: canary })}`);
    const error = await s.close().then(() => undefined, (e: Error) => e.message);
    expect(error).toMatch(/^stack bad-input-canary: secret scan: \d+ leaks of secret values:\n/);
    expect(error).toContain("the canary (plaintext) in the output of `pulumi config get canary`");
    expect(error).toContain("the canary (plaintext) in the stack's config file Pulumi.bad-input-canary.yaml");
    expect(error).toContain("the canary (plaintext) in the exported state (pulumi stack export)");
    expect(error).toContain("the canary (plaintext) in the state backend's file .pulumi/stacks/any-resource/bad-input-canary.json");
    expect(error).not.toContain(canary); // the report names the secret, never repeats it (the `up` command line held it)
    expect(error).not.toMatch(/emulator's (apiKey|accessToken)/);
  }));

  test("the scan finds a secret base64-encoded inside a longer value, at any offset", () => {
    const secret = { label: "the token", value: "tok-1b2c3d4e5f" };
    for (const prefix of ["", "a", "ab", "user:"]) {
      const text = `Authorization: Basic ${Buffer.from(`${prefix}${secret.value}!`).toString("base64")}`;
      expect(findLeaks([secret], [{ where: "a header", text }]), prefix).toEqual([{ label: "the token", where: "a header", form: "base64" }]);
    }
    expect(findLeaks([secret], [{ where: "a header", text: Buffer.from("tok-1b2c3d4e5X").toString("base64") }])).toEqual([]);
  });
});
