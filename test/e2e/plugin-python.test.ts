/**
 * examples/python-team through the real engine: a Python program, the Python SDK generated from
 * schema.json (sdks/python, installed with pip from the example's requirements.txt, `pulumi` from
 * PyPI at the engine's version) and the native plugin. The Python host is the one
 * scripts/build-pulumi-cli.sh builds; it reads no runtime options, so the test puts the virtualenv's
 * `python3` first on PATH, as an activated virtualenv does. Then, in the same virtualenv, #26's "Done
 * when" stack in Python (fixtures/snapshot-python; fixtures/snapshot is the TypeScript one).
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { callsSince, inventoryOfStack, lastSeq, ROOT, startStack, type E2eStack } from "./harness";

const EXAMPLE = join(ROOT, "examples", "python-team");
let s: E2eStack;
let venv = "";

beforeAll(async () => {
  venv = mkdtempSync(join(tmpdir(), "pulumi-sandbox-venv-"));
  execFileSync("python3", ["-m", "venv", join(venv, "env")], { stdio: "pipe" });
  // The example's requirements, with the SDK installed from a copy: setuptools builds in the source
  // tree (build/, *.egg-info), which would leave files in sdks/ that `npm run gen` does not make.
  cpSync(join(ROOT, "sdks", "python"), join(venv, "sdk"), { recursive: true });
  const requirements = readFileSync(join(EXAMPLE, "requirements.txt"), "utf8").replace("../../sdks/python", join(venv, "sdk"));
  expect(requirements).toContain(join(venv, "sdk"));
  writeFileSync(join(venv, "requirements.txt"), requirements);
  execFileSync(join(venv, "env", "bin", "pip"), ["install", "--quiet", "--disable-pip-version-check", "-r", join(venv, "requirements.txt")], { stdio: "pipe" });
  process.env.PATH = [join(venv, "env", "bin"), process.env.PATH].join(delimiter);
  s = await startStack(EXAMPLE, "e2e-python-team");
  s.secret("team-shared-token-8a7e3f", "python-team's default sharedToken");
  await s.ok("config", "set", "--path", "members[0]", "ada");
  await s.ok("config", "set", "--path", "members[1]", "grace");
}, 600_000);

afterAll(async () => {
  await s?.close();
  if (venv) rmSync(venv, { recursive: true, force: true });
});

test("up makes a public template and one provisioned sandbox per member, from Python", async () => {
  const up = await s.ok("up", "--yes", "--skip-preview");
  expect(up.output).toMatch(/\+ 4 created/); // the stack, the template, two sandboxes
  const out = await s.outputs();
  const inv = inventoryOfStack(s.emulator);
  expect(inv.templates).toMatchObject([{ templateID: out.templateID, public: true }]);
  const owners = Object.fromEntries(inv.sandboxes.map((x) => [x.metadata.owner, x.sandboxID]));
  expect(owners).toEqual(out.environments);
  expect(inv.sandboxes.every((x) => x.metadata.team === "platform" && x.templateID === out.templateID)).toBe(true);
  // Provisioned.
  expect(up.output).toContain("[Sandbox env-ada] provision 1/1: exit code 0");
});

test("a second up changes nothing and sends the service nothing", async () => {
  const since = lastSeq(s.emulator);
  const up = await s.ok("up", "--yes", "--skip-preview");
  expect(up.output).toMatch(/4 unchanged/);
  expect(callsSince(s.emulator, since)).toEqual([]);
});

test("refresh finds nothing changed, and the state holds no provider text and no plaintext secret", async () => {
  await s.ok("refresh", "--yes", "--skip-preview", "--expect-no-changes");
  const state = await s.exported();
  expect(state).not.toContain("__provider");
  // The secret-marked env var is stored encrypted (the close-time scan also checks every transcript).
  expect(state).not.toContain("team-shared-token-8a7e3f");
});

test("making the template team-only is one PATCH in place: same templateID, the sandboxes untouched", async () => {
  const before = await s.outputs();
  await s.ok("config", "set", "public", "false");
  const preview = await s.ok("preview", "--diff");
  expect(preview.output).toMatch(/~ 1 to update/);
  expect(preview.output).not.toMatch(/to replace|to create|to delete/);
  const since = lastSeq(s.emulator);
  await s.ok("up", "--yes", "--skip-preview");
  // Reads may follow (the outputs as the service now reports them); the one change is the PATCH.
  expect(callsSince(s.emulator, since).filter((c) => !c.startsWith("GET "))).toEqual([`PATCH /v2/templates/${before.templateID}`]);
  expect(await s.outputs()).toEqual(before);
  expect(inventoryOfStack(s.emulator).templates).toMatchObject([{ templateID: before.templateID, public: false }]);
  await s.ok("preview", "--expect-no-changes");
});

test("destroy removes every sandbox, then the template", async () => {
  await s.ok("destroy", "--yes", "--skip-preview");
  expect(inventoryOfStack(s.emulator)).toEqual({ sandboxes: [], volumes: [], templates: [] });
});

describe("a snapshot, two sandboxes from it, a fork, a secret referred to by name and lookups, from Python", () => {
  const TOKEN = "e2e-python-api-token-3c8d21";
  let p: E2eStack;

  beforeAll(async () => {
    p = await startStack(join(ROOT, "test", "e2e", "fixtures", "snapshot-python"), "e2e-python-snapshot");
    p.secret(TOKEN, "the Python Secret's value");
    await p.ok("config", "set", "--secret", "apiToken", TOKEN);
  }, 300_000);

  afterAll(async () => {
    await p?.close();
  });

  const served = async (route: string) => {
    const res = await fetch(`${p.emulator.apiUrl}${route}`, { headers: { "X-API-Key": p.emulator.apiKey } });
    expect(res.status).toBe(200);
    return (await res.json()) as unknown[];
  };

  test("up: the fork reads its origin's file; the lookups list the four sandboxes and the secret's name", async () => {
    await p.ok("up", "--yes", "--skip-preview");
    const out = await p.outputs();
    expect(out.listedSandboxIDs).toEqual(out.sandboxIDs);
    expect(out.sandboxIDs).toHaveLength(4);
    expect(out.secretNames).toEqual([out.tokenName]);
    expect((await p.outputs({ showSecrets: true })).twinRead).toBe("made-before-the-snapshot\n");
    expect(p.emulator.calls().filter((c) => c.method === "POST" && c.path.endsWith("/fork"))).toHaveLength(1);
    const child2 = p.emulator.state.sandboxes().find((x) => x.sandboxID === out.child2ID)!;
    expect((child2.network as { rules?: unknown } | undefined)?.rules).toEqual({
      "api.example.com": [{ transform: { headers: { Authorization: `Bearer \${e2b.secrets.${String(out.tokenName)}}` } } }],
    });
    await p.ok("preview", "--expect-no-changes");
  });

  test("a new port updates child2 and the fork in place, with no write to the service", async () => {
    const before = await p.outputs();
    await p.ok("config", "set", "port", "9090");
    const since = lastSeq(p.emulator);
    const up = await p.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/~ 2 updated/);
    expect(callsSince(p.emulator, since).filter((c) => !c.startsWith("GET"))).toEqual([]);
    expect((await p.outputs()).sandboxIDs).toEqual(before.sandboxIDs);
    await p.ok("preview", "--expect-no-changes");
  });

  test("destroy leaves no sandbox, snapshot or secret", async () => {
    await p.ok("destroy", "--yes", "--skip-preview");
    expect(p.emulator.state.sandboxes()).toEqual([]);
    expect(await served("/snapshots")).toEqual([]);
    expect(await served("/secrets")).toEqual([]);
  });
});
