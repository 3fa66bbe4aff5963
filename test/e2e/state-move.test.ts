/**
 * `pulumi state move` of resources to another stack while the first stack's program still declares
 * them (issue "Identity that holds", item 1): the moved resources keep their keys (the first stack's
 * instance and their URNs), so the first stack's next `up` makes new ones under the same first names.
 * Those must leave the moved ones alone: the moved sandbox keeps running (a finished create claimed
 * it), the new volume and secret get the next free names, and each stack's `destroy` removes its own.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { ensurePulumi } from "../../scripts/ensure-pulumi.mjs";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { pulumiEnv, runPulumi } from "../../scripts/pulumi-run.mjs";
import { ROOT, startStack, type E2eStack } from "./harness";
import { initE2eStack } from "./stack-init";

const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "state-move");
const A = "e2e-move-a";
const B = "e2e-move-b";
let s: E2eStack;
let env: Record<string, string>;
let moved: Record<string, unknown> = {};

interface Run { code: number; output: string; stdout: string }
/** A CLI command on stack B, which shares A's backend (the harness drives A). */
async function onB(...args: string[]): Promise<Run> {
  const res = (await runPulumi([...args, "--stack", B], { cwd: FIXTURE, env })) as Run;
  if (res.code !== 0) throw new Error(`pulumi ${args.join(" ")} (stack ${B}) exited ${res.code}:\n${res.output}`);
  return res;
}

beforeAll(async () => {
  s = await startStack(FIXTURE, A);
  const about = JSON.parse((await s.ok("about", "--output", "json")).stdout) as { backend: { url: string } };
  env = pulumiEnv({ binDir: await ensurePulumi(), stateDir: new URL(about.backend.url).pathname, extra: { PULUMI_CONFIG_PASSPHRASE: "e2e-passphrase", PULUMI_NODEJS_TRANSPILE_ONLY: "true" } });
  await initE2eStack(FIXTURE, env, B, s.emulator);
}, 300_000);

afterAll(async () => {
  await runPulumi(["stack", "rm", "--yes", "--force", "--stack", B], { cwd: FIXTURE, env }).catch(() => undefined);
  await s?.close();
}, 300_000);

const running = () => s.emulator.state.sandboxes().filter((x) => x.state === "running").map((x) => x.sandboxID).sort();
const secretNames = async () => ((await (await fetch(`${s.emulator.apiUrl}/secrets`, { headers: { "X-API-Key": s.emulator.apiKey } })).json()) as { name: string }[]).map((x) => x.name).sort();

test("up on A, then state move of all three to B", async () => {
  await s.ok("up", "--yes", "--skip-preview");
  moved = await s.outputs();
  const urns = ["pulumi-nodejs:dynamic/sandbox:Sandbox::web", "pulumi-nodejs:dynamic/sandbox:Volume::data", "pulumi-nodejs:dynamic/sandbox:Secret::token"]
    .map((tail) => `urn:pulumi:${A}::state-move::${tail}`);
  const move = (await runPulumi(["state", "move", "--source", A, "--dest", B, "--yes", ...urns], { cwd: FIXTURE, env })) as Run;
  expect(move.code, move.output).toBe(0);
  const inB = JSON.parse((await onB("stack", "export")).stdout) as { deployment: { resources?: { urn: string }[] } };
  expect((inB.deployment.resources ?? []).map((r) => r.urn.replace(`urn:pulumi:${B}::`, `urn:pulumi:${A}::`))).toEqual(expect.arrayContaining(urns));
});

test("A's program still declares them: its up makes new ones and leaves B's alone", async () => {
  const preview = await s.ok("preview", "--diff");
  expect(preview.output).toContain(`"${String(moved.dataName)}-2"`);
  expect(preview.output).toContain(`"${String(moved.tokenName)}-2"`);
  const up = await s.ok("up", "--yes", "--skip-preview");
  const out = await s.outputs();
  expect(out.webID).not.toBe(moved.webID);
  expect(running()).toEqual([moved.webID, out.webID].sort());
  expect(out.dataID).not.toBe(moved.dataID);
  expect(out.dataName).toBe(`${String(moved.dataName)}-2`);
  expect(out.tokenID).not.toBe(moved.tokenID);
  expect(out.tokenName).toBe(`${String(moved.tokenName)}-2`);
  expect(s.emulator.state.volumes().map((v) => v.volumeID).sort()).toEqual([moved.dataID, out.dataID].sort());
  expect(up.output).toContain(`[Sandbox web] warning: sandbox ${String(moved.webID)} carries this resource's marker, but a finished create made it for another resource`);
  expect(up.output).toContain(`[Volume data] warning: volume name "${String(moved.dataName)}" is held by another resource's volume`);
  expect(up.output).toContain(`[Secret token] warning: secret name "${String(moved.tokenName)}" is held by another resource's secret`);
});

test("B holds the moved ones as they were: its destroy removes them and nothing of A's", async () => {
  const mine = await s.outputs();
  const state = JSON.parse((await onB("stack", "export")).stdout) as { deployment: { resources?: { id?: string }[] } };
  expect((state.deployment.resources ?? []).map((r) => r.id).filter(Boolean)).toEqual(expect.arrayContaining([moved.webID, moved.dataID, moved.tokenID]));
  await onB("destroy", "--yes", "--skip-preview");
  expect(running()).toEqual([mine.webID]);
  expect(s.emulator.state.volumes().map((v) => v.volumeID)).toEqual([mine.dataID]);
  expect(await secretNames()).toEqual([mine.tokenName]);
  await s.ok("destroy", "--yes", "--skip-preview");
  expect(s.emulator.state.sandboxes()).toEqual([]);
  expect(s.emulator.state.volumes()).toEqual([]);
  expect(await secretNames()).toEqual([]);
});
