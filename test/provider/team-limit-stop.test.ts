/**
 * A create waiting at the team's concurrent-sandbox limit (provider/runtime/limit-wait.ts) ends when
 * the engine says so, in both front ends, over gRPC as the engine drives them: its Cancel (the first
 * Ctrl-C of `pulumi up`) and the Create's own deadline (`customTimeouts.create`) each fail the create
 * within a second or two, with a message that says why it stopped waiting; and nothing is made later,
 * when a slot frees (no create is sent after the failure).
 *
 * The dynamic provider's host (@pulumi/pulumi's `cmd/dynamic-provider`) answers Cancel itself and
 * drops it, and hands a Create's deadline to no one; the runtime takes both from its gRPC server
 * (provider/runtime/operation.ts). The team's slots are held by another user of the team: sandboxes
 * made straight through the API.
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { startHost, type ProviderHost } from "./host";
import { makeProject, REPO, type Project } from "./project";
import { providerTextOf } from "./serialized";

type Obj = Record<string, unknown>;

interface FrontEnd {
  name: "dynamic" | "plugin";
  emu: Emulator;
  host: ProviderHost;
  urn(name: string): string;
  bag(props: Obj): Obj;
}

let project: Project;
const ends: FrontEnd[] = [];

beforeAll(async () => {
  project = makeProject();
  const bin = join(project.dir, "node_modules", "pulumi-sandbox", "bin");
  mkdirSync(bin);
  copyFileSync(join(REPO, "bin", "pulumi-resource-sandbox"), join(bin, "pulumi-resource-sandbox"));
  const text = providerTextOf("Sandbox");
  for (const name of ["dynamic", "plugin"] as const) {
    const emu = await createEmulator({ sandboxLimit: 2 });
    if (name === "dynamic") {
      const host = await startHost({ cwd: project.dir, project: "proj" });
      await host.configure({ "sandbox:apiKey": emu.apiKey, "sandbox:apiUrl": emu.apiUrl, "sandbox:sandboxUrl": emu.sandboxUrl });
      ends.push({ name, emu, host, urn: (n) => `urn:pulumi:dev::proj::pulumi-nodejs:dynamic/sandbox:Sandbox::${n}`, bag: (props) => ({ ...props, __provider: text }) });
    } else {
      const env = { E2B_API_KEY: emu.apiKey, E2B_API_URL: emu.apiUrl, E2B_SANDBOX_URL: emu.sandboxUrl };
      const host = await startHost({ cwd: project.dir, project: "proj", env, plugin: join(bin, "pulumi-resource-sandbox") });
      await host.configure({});
      ends.push({ name, emu, host, urn: (n) => `urn:pulumi:dev::proj::sandbox:index:Sandbox::${n}`, bag: (props) => props });
    }
  }
}, 120_000);

afterAll(async () => {
  for (const end of ends) {
    await end.host.close();
    await end.emu.close();
  }
  project?.remove();
});

/** Another user of the team: a sandbox made straight through the API. */
async function outsideSandbox(emu: Emulator): Promise<string> {
  const res = await fetch(`${emu.apiUrl}/sandboxes`, {
    method: "POST",
    headers: { "x-api-key": emu.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ templateID: "base", timeout: 600 }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { sandboxID: string }).sandboxID;
}

async function killOutside(emu: Emulator, id: string): Promise<void> {
  await fetch(`${emu.apiUrl}/sandboxes/${id}`, { method: "DELETE", headers: { "x-api-key": emu.apiKey } });
}

const lastSeq = (emu: Emulator): number => emu.calls().at(-1)?.seq ?? 0;
/** The creates sent (POST /sandboxes, or /v2/sandboxes). */
const creates = (emu: Emulator, since: number) => emu.calls(since).filter((c) => c.method === "POST" && /^(\/v2)?\/sandboxes$/.test(c.path));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

/** How a create ended, and when: never waits past `limitMs` (a create still waiting then is `"still waiting"`). */
async function outcome(create: Promise<unknown>, limitMs: number): Promise<{ error?: string; at: number }> {
  const settled = create.then(() => ({ error: "the create succeeded" }), (err: Error) => ({ error: err.message }));
  const late = sleep(limitMs).then(() => ({ error: "still waiting" }));
  const result = await Promise.race([settled, late]);
  return { ...result, at: Date.now() };
}

/**
 * The team full (2 of 2 held outside), a create of `name` (with `timeoutSeconds` as its deadline)
 * waiting, refused at least twice, then `stop`. Returns what the create ended with, how long after
 * `stop` and after its start; then, one of the held slots freed and 2.5 s later, the creates sent
 * since it ended and the sandboxes left.
 */
async function stoppedWhileWaiting(end: FrontEnd, name: string, stop: () => Promise<void>, timeoutSeconds = 0) {
  const { emu, host } = end;
  const held = [await outsideSandbox(emu), await outsideSandbox(emu)];
  try {
    const { inputs } = await host.check(end.urn(name), {}, end.bag({ templateID: "base", timeoutSeconds: 600 }));
    const since = lastSeq(emu);
    const started = Date.now();
    const create = host.create(end.urn(name), inputs, timeoutSeconds);
    create.catch(() => undefined);
    await until("the create to be refused twice", () => creates(emu, since).filter((c) => c.status === 429).length >= 2);
    const stopAt = Date.now();
    await stop();
    const ended = await outcome(create, 8_000);
    const after = lastSeq(emu);
    // A slot frees: a create still trying would now be taken.
    await killOutside(emu, held[0]!);
    await sleep(2_500);
    const sentAfter = creates(emu, after);
    const left = emu.state.sandboxes().map((s) => s.sandboxID);
    return { error: ended.error ?? "", afterStopMs: ended.at - stopAt, afterStartMs: ended.at - started, sentAfter, left, held };
  } finally {
    // Whatever happened, the next case starts with the team empty.
    for (const { sandboxID } of emu.state.sandboxes()) await killOutside(emu, sandboxID);
  }
}

describe.each(["dynamic", "plugin"] as const)("%s: a create waiting for a free slot at the team's limit", (frontEnd) => {
  const end = () => ends.find((e) => e.name === frontEnd)!;

  test("the engine's Cancel fails it at once, saying it was cancelled while waiting; nothing is made when a slot frees", async () => {
    const r = await stoppedWhileWaiting(end(), "cancelled", () => end().host.cancel());
    expect(r.error).toMatch(
      /^Stopped waiting for a free slot at the team's concurrent-sandbox limit after [\d.]+ m?s: the engine cancelled the operation \(Ctrl-C, or the deployment was stopped\)\. The create made nothing \(the service refused it: you have reached the maximum number of concurrent E2B sandboxes \(2\)\. .*\); the next `pulumi up` tries it again\.$/,
    );
    expect(r.afterStopMs).toBeLessThan(1_500);
    expect(r.sentAfter).toEqual([]);
    expect(r.left).toEqual([r.held[1]]);
  }, 60_000);

  test("customTimeouts.create ends the wait at the deadline, saying it timed out while waiting; nothing is made when a slot frees", async () => {
    const r = await stoppedWhileWaiting(end(), "deadline", async () => undefined, 2);
    expect(r.error).toMatch(
      /^Stopped waiting for a free slot at the team's concurrent-sandbox limit after [\d.]+ m?s: the create of Sandbox deadline passed its timeout of 2 s \(customTimeouts\.create\)\. The create made nothing \(the service refused it: you have reached the maximum number of concurrent E2B sandboxes \(2\)\. .*\); the next `pulumi up` tries it again\.$/,
    );
    expect(r.afterStartMs).toBeGreaterThanOrEqual(1_900);
    expect(r.afterStartMs).toBeLessThan(3_500);
    expect(r.sentAfter).toEqual([]);
    expect(r.left).toEqual([r.held[1]]);
  }, 60_000);
});
