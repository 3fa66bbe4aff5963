/**
 * No secret in state, in any field (issue 47, item 2): a SandboxFleet and a Sandbox take secrets in
 * each input that carries one (envVars, a member's envVars, a provision command, an egress rule's
 * header value), and `pulumi stack export` (without `--show-secrets`) is scanned for them after each
 * path that writes state: the first `up`, a change that fails (a fleet keeps the failed members'
 * inputs in a field of its own), `refresh`, and an `up` killed halfway then run again. One stack,
 * one emulator, in order: `scanState` (./harness.ts) is the scan a new kind's e2e reuses.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT, startStack, type E2eStack } from "./harness";
import { backendDir, endPluginsOf, killableUp, until } from "./kill";

const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "secret-state");
let s: E2eStack;
let stateDir = "";

/** The secret config values, each as a "secret:<key>" string of the JSON args stands for it (fixtures/secret-state). */
const SECRETS = {
  tok: "tok-9f3a1c7e5b2d4680",
  own: "own-4d2b8e6a0c1f3579",
  cmd: "echo cmd-7e1f3b9d5a2c8416 >/dev/null",
  hdr: "Bearer hdr-2c8e4a6f1b3d9075",
};

const PORT = 41873;

type Obj = Record<string, unknown>;
/** The outputs of the stack's resource of type `kind`, as `pulumi stack export` (without --show-secrets) has them. */
async function stored(kind: string): Promise<Obj> {
  const state = JSON.parse(await s.exported()) as { deployment: { resources: { type: string; outputs?: Obj }[] } };
  return state.deployment.resources.find((r) => r.type.endsWith(`:${kind}`))!.outputs!;
}
const isSecret = (v: unknown) => v !== null && typeof v === "object" && "ciphertext" in v;
const network = { rules: { "api.example.com": [{ transform: { headers: { Authorization: "secret:hdr" } } }] } };
const provision = { commands: [{ command: "secret:cmd" }] };
const sandboxArgs = (templateID: string): Obj => ({ templateID, envVars: { TOKEN: "secret:tok", MODE: "plain" }, provision, network, ports: ["secret-number:port"] });
const fleetArgs = (templateID: string, members: Obj): Obj => ({ sandbox: sandboxArgs(templateID), members });
const people = { ada: { envVars: { OWN: "secret:own" } }, bob: {} };
const reshape = (fleet: Obj, sandbox: Obj) => s.configure({ fleet: JSON.stringify(fleet), sandbox: JSON.stringify(sandbox) });

beforeAll(async () => {
  // A create takes a moment, so a kill lands while the fleet's update is under way.
  s = await startStack(FIXTURE, "e2e-secret-state", { latency: { createMs: 1500 } });
  stateDir = await backendDir(s);
  for (const [key, value] of Object.entries(SECRETS)) s.secret(value, `the secret config value ${key}`);
  // A secret port too: too short to scan for, so the URLs that name it are checked to be secret.
  await s.ok("config", "set-all", ...Object.entries({ ...SECRETS, port: String(PORT) }).flatMap(([k, v]) => ["--secret", `${k}=${v}`]));
}, 300_000);

afterAll(async () => {
  endPluginsOf(stateDir);
  await s?.close();
}, 300_000);

test("first up: no secret in state", async () => {
  await reshape(fleetArgs("base", people), sandboxArgs("base"));
  await s.ok("up", "--yes", "--skip-preview");
  expect((await s.outputs()).ready).toBe(2);
  await s.scanState("the first `up`");
  // A URL names its port (its key, and inside its value): secret when `ports` is (issue 47, item 6).
  const members = (await stored("SandboxFleet")).sandboxes as Record<string, Obj>;
  expect(Object.fromEntries(Object.entries(members).map(([k, m]) => [k, isSecret(m.urls)]))).toEqual({ ada: true, bob: true });
  expect(isSecret((await stored("Sandbox")).urls)).toBe(true);
});

test("a change that fails: the fleet keeps its members' old inputs, secrets still secret", async () => {
  await reshape(fleetArgs("no-such-template", people), sandboxArgs("no-such-template"));
  const up = await s.pulumi("up", "--yes", "--skip-preview");
  expect(up.code, up.output).not.toBe(0);
  expect(up.output).toContain("2 of the 2 members to create, change or delete failed");
  const exported = await s.exported();
  // Each member keeps the inputs its sandbox was made from (its record's `madeFrom`), holding the secrets.
  expect(exported).toContain("madeFrom");
  await s.scanState("a failed change");
});

test("refresh: what the read writes back holds no secret either", async () => {
  await s.ok("refresh", "--yes", "--skip-preview");
  await s.scanState("`pulumi refresh`");
});

test("an up killed halfway, then run again: no secret in state after either", async () => {
  await reshape(fleetArgs("base", { ...people, cy: { envVars: { OWN: "secret:own" } } }), sandboxArgs("base"));
  const seq = s.emulator.calls().at(-1)?.seq ?? 0;
  const run = await killableUp(s, FIXTURE, stateDir);
  await until("the killed run's first create", () => s.emulator.calls(seq).some((c) => c.method === "POST" && c.path.startsWith("/v2/sandboxes")), 60_000);
  await run.kill();
  await s.ok("cancel", "--yes");
  await s.scanState("an `up` killed halfway");
  await s.ok("up", "--yes", "--skip-preview");
  expect((await s.outputs()).ready).toBe(3);
  await s.scanState("the `up` after the killed one");
});
