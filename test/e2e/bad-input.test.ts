/**
 * Bad input fails at `pulumi preview`, before any call to the service: the real CLI runs the
 * any-resource fixture (one resource of any kind in schema.json, with the args of stack config `args`), and for
 * each invalid input the preview must exit non-zero, print the exact rule of the kind's spec (provider/kinds/) naming the
 * field path, report no other failure, and leave the emulator with zero calls.
 *
 * Cases run on two stacks at once (the machine has 2 cores; the engine is the cost: ~2 s a preview
 * on an idle machine, 4 times that on a busy one).
 * Each preview passes `--config kind=… --config args=…`, so a stack is reused without extra commands.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CASES, SBX, VALID, type Kind } from "../fixtures/bad-inputs";
import { startStack, type CliResult, type E2eStack } from "./harness";
import { findLeaks } from "./secrets";

const FIXTURE = join(__dirname, "fixtures", "any-resource");
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

describe("the fixture's kinds", () => {
  // The fixture takes its kinds from schema.json (the registry's), not a list of its own: an unknown
  // kind is refused naming every kind there, Snapshot included, so a kind added to the registry is
  // declarable with no edit of the fixture.
  test("an unknown kind is refused, naming every kind of schema.json", async () => {
    const kinds = Object.keys((JSON.parse(readFileSync(join(__dirname, "..", "..", "schema.json"), "utf8")) as { resources: object }).resources).map((t) => t.split(":").pop());
    expect(kinds).toContain("Snapshot");
    const { res, calls } = await preview("Nope" as Kind, {});
    expect(res.code, res.output).not.toBe(0);
    expect(res.output).toContain(`config kind must be one of ${kinds.join(", ")}, got "Nope"`);
    expect(calls).toBe(0);
  }, CASE_TIMEOUT_MS);
});

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
