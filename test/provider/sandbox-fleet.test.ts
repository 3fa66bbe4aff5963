/**
 * SandboxFleet: the provider's methods called directly against the emulator. A fleet's members are
 * Sandboxes to the Sandbox handlers; these tests read what the service holds (markers, the call log)
 * to see each member made, changed and deleted once, and the fleet's own check, diff and state.
 */
import { describe, expect, test, vi } from "vitest";
import { PartialCreateError } from "../../provider/runtime/partial";
import { ENGINE_GONE, runAsOperation } from "../../provider/runtime/operation";
import { writtenInputs } from "../../provider/kinds/sandbox-fleet/members";
import { stackOf } from "../../provider/resource-key";
import { UNKNOWN } from "../../provider/spec";
import { callsSince, checked, checkReasons, emulatorForFile, expectPlainJSON, lastSeq, rejection, rest, runtime } from "./harness";

const emu = emulatorForFile({ latency: { createMs: 30 } });

type Obj = Record<string, unknown>;
const KEY = "inst-1/urn:pulumi:dev::proj::pulumi-nodejs:dynamic/sandbox:SandboxFleet::pool";
const members = { ada: {}, grace: { envVars: { ROLE: "lead" } }, linus: { timeoutSeconds: 900 } };
const fleet = (more: Obj = {}) => ({ sandbox: { templateID: "base", timeoutSeconds: 600, envVars: { TEAM: "core" } }, members, ...more });
const sandboxOf = (id: unknown) => emu().state.sandboxes().find((s) => s.sandboxID === id);
const ids = (outs: Obj) => Object.fromEntries(Object.entries(outs.sandboxes as Record<string, { sandboxID: string }>).map(([k, v]) => [k, v.sandboxID]));
/** Platform calls that change something (reads, and the in-sandbox calls of claims and provisioning, left out). */
const writes = (seq: number) => emu().calls(seq).filter((c) => c.area === "platform" && c.method !== "GET").map((c) => `${c.method} ${c.path.split("?")[0]}`);
/** The sandboxes the service holds for fleet `key`'s members. */
const membersOf = (key: string) => emu().state.sandboxes().filter((s) => s.metadata["pulumi-sandbox.resource"]?.startsWith(`${key}/members/`)).map((s) => s.sandboxID).sort();

describe("check", () => {
  test("a member's inputs are checked by the Sandbox's rules, merged, and named by the member's key", async () => {
    expect(await checkReasons("SandboxFleet", fleet({ members: { ada: { timeoutSeconds: 0 }, grace: { network: { allowPublicTraffic: false } } } }))).toEqual([
      'members["ada"].timeoutSeconds: must be greater than 0 (the service refuses 0)',
      'members["grace"].network.allowPublicTraffic: false requires secure: true (the service refuses it otherwise)',
    ]);
    expect(await checkReasons("SandboxFleet", { sandbox: { timeoutSeconds: 60 }, count: 3 })).toEqual([
      "sandbox.templateID: required: give the template (ID or alias) to create from, or forkFrom to fork a sandbox",
    ]);
    expect(await checkReasons("SandboxFleet", { sandbox: { templateID: "base", timeoutSeconds: -1 }, count: 3 })).toEqual([
      "sandbox.timeoutSeconds: must be greater than 0 (the service refuses 0)",
    ]);
  });

  test("members or count, one of them; keys as paths can name them; forkFrom is no member's input", async () => {
    expect(await checkReasons("SandboxFleet", fleet({ count: 2 }))).toEqual(["count: give `members` or `count`, not both"]);
    expect(await checkReasons("SandboxFleet", { sandbox: { templateID: "base" } })).toEqual([
      "members: required: give `members` (each member's key to the inputs it overrides, {} for none) or `count` (that many identical members)",
    ]);
    expect(await checkReasons("SandboxFleet", { sandbox: { templateID: "base" }, members: { "a b": {} } })).toEqual([
      "members.a b: member keys must be 1 to 63 letters, digits, '_', '.', '@' or '-', starting with a letter or digit",
    ]);
    expect(await checkReasons("SandboxFleet", { sandbox: { templateID: "base" }, members: { ada: { forkFrom: "i1" } } })).toEqual([
      'members["ada"].forkFrom: unknown property of Sandbox; valid properties are: templateID, timeoutSeconds, autoPause, autoResume, lifecycle, secure, allowInternetAccess, network, metadata, envVars, mcp, volumeMounts, provision, state, pauseMode, ports',
    ]);
  });

  test("a member's envVars and metadata merge over the fleet's key by key; any other input replaces the fleet's", () => {
    const inputs = fleet({ sandbox: { templateID: "base", envVars: { TEAM: "core", ROLE: "dev" }, metadata: { team: "core" }, ports: [3000] } });
    expect(writtenInputs(inputs, "grace")).toEqual({ templateID: "base", envVars: { TEAM: "core", ROLE: "lead" }, metadata: { team: "core" }, ports: [3000] });
    expect(writtenInputs({ ...inputs, members: { ada: { metadata: { owner: "ada" }, ports: [8080] } } }, "ada")).toEqual({
      templateID: "base", envVars: { TEAM: "core", ROLE: "dev" }, metadata: { team: "core", owner: "ada" }, ports: [8080],
    });
  });

  test("values not known at preview pass, and the members known are still checked", async () => {
    const inputs = await checked("SandboxFleet", { sandbox: { templateID: UNKNOWN }, members: { ada: {} }, __resource: KEY });
    expect(inputs).toMatchObject({ sandbox: { templateID: UNKNOWN }, members: { ada: {} }, maxParallel: 16, __generation: 0 });
    expect(await checkReasons("SandboxFleet", { sandbox: { templateID: UNKNOWN }, members: { ada: { timeoutSeconds: 1.5 } } })).toEqual([
      'members["ada"].timeoutSeconds: must be a whole number of seconds',
    ]);
  });
});

describe("a fleet of three people", () => {
  let inputs: Obj;
  let id = "";
  let outs: Obj;

  test("create makes each member once, from one listing, each sandbox marked as the fleet's member", async () => {
    inputs = await checked("SandboxFleet", { ...fleet(), __resource: KEY });
    const seq = lastSeq(emu());
    ({ id, outs } = await runtime.create("SandboxFleet", inputs));
    expectPlainJSON(outs);
    expect(id).toMatch(/^sf-[0-9a-f]{16}$/);
    expect(Object.keys(outs.sandboxes as Obj).sort()).toEqual(["ada", "grace", "linus"]);
    expect(outs.ready).toBe(3);
    const calls = callsSince(emu(), seq);
    expect(calls.filter((c) => c === "GET /v2/sandboxes")).toHaveLength(1);
    expect(calls.filter((c) => c === "POST /v2/sandboxes")).toHaveLength(3);
    // A member's entry is all in its create's answer: no read of the sandbox after it.
    expect(calls.filter((c) => c.startsWith("GET /sandboxes/"))).toEqual([]);
    const grace = sandboxOf(ids(outs).grace)!;
    expect(grace.metadata).toMatchObject({ "pulumi-sandbox.resource": `${KEY}/members/grace#0`, "pulumi-sandbox.stack": stackOf(KEY) });
    expect(stackOf(`${KEY}/members/grace`)).toBe(stackOf(KEY));
  });

  test("state keeps per member only what the Sandbox handlers need again: under 700 bytes each", async () => {
    const entry = (outs.sandboxes as Record<string, Obj>).ada!;
    // No ports, no commands: no `urls`, no `provisionResults`; no trafficAccessToken from the service.
    expect(Object.keys(entry).sort()).toEqual(["envdAccessToken", "provisioned", "sandboxID", "state"]);
    const perMember = JSON.stringify(outs.sandboxes).length / 3;
    console.info(`state per member (plain JSON, before the engine's secret wrapping): ${perMember.toFixed(0)} bytes`);
    expect(perMember).toBeLessThan(700);
    expect(Object.keys(outs).filter((k) => k.startsWith("__")).sort()).toEqual(["__generation", "__nonce", "__provider", "__resource", "__version"]);
  });

  test("diff: nothing changed is no change; maxParallel alone changes nothing remotely", async () => {
    expect(await runtime.diff("SandboxFleet", id, outs, await checked("SandboxFleet", fleet(), outs))).toMatchObject({ changes: false });
    expect(await runtime.diff("SandboxFleet", id, outs, await checked("SandboxFleet", fleet({ maxParallel: 2 }), outs))).toMatchObject({ changes: false });
  });

  test("diff names each member that changes, and a change of `sandbox` by its field; the fleet is never replaced", async () => {
    const news = fleet({ members: { ada: { envVars: { X: "1" } }, grace: members.grace, eve: {} } });
    expect(await runtime.diff("SandboxFleet", id, outs, await checked("SandboxFleet", news, outs))).toEqual({
      changes: true, replaces: [], deleteBeforeReplace: false, diffs: ["members"],
      detailedDiff: { 'members["eve"]': "add", 'members["linus"]': "delete", 'members["ada"].envVars': "update" },
    });
    const shared = await checked("SandboxFleet", { ...fleet(), sandbox: { templateID: "base", timeoutSeconds: 1200, envVars: { TEAM: "core" } } }, outs);
    expect(await runtime.diff("SandboxFleet", id, outs, shared)).toEqual({
      changes: true, replaces: [], deleteBeforeReplace: false, diffs: ["sandbox"], detailedDiff: { "sandbox.timeoutSeconds": "update" },
    });
  });

  test("update: one member's envVars replace its sandbox inside the fleet, and no other member is called", async () => {
    const before = ids(outs);
    const news = await checked("SandboxFleet", fleet({ members: { ...members, ada: { envVars: { X: "1" } } } }), outs);
    const seq = lastSeq(emu());
    outs = (await runtime.update("SandboxFleet", id, outs, news)).outs;
    const after = ids(outs);
    expect(after.grace).toBe(before.grace);
    expect(after.linus).toBe(before.linus);
    expect(after.ada).not.toBe(before.ada);
    expect(writes(seq)).toEqual(["POST /v2/sandboxes", `DELETE /sandboxes/${before.ada}`]);
    expect(sandboxOf(after.ada)!.metadata["pulumi-sandbox.resource"]).toBe(`${KEY}/members/ada#1`);
    expect(outs.__members).toEqual({ ada: { generation: 1 } });
  });

  test("update: a change of `sandbox` reaches every member, in place where a Sandbox changes in place", async () => {
    const before = ids(outs);
    const news = await checked("SandboxFleet", { ...fleet({ members: { ...members, ada: { envVars: { X: "1" } } } }), sandbox: { templateID: "base", timeoutSeconds: 1200, envVars: { TEAM: "core" } } }, outs);
    const seq = lastSeq(emu());
    outs = (await runtime.update("SandboxFleet", id, outs, news)).outs;
    expect(ids(outs)).toEqual(before);
    // linus keeps his own 900 s: only ada's and grace's reach the service.
    expect(writes(seq).sort()).toEqual([`POST /sandboxes/${before.ada}/timeout`, `POST /sandboxes/${before.grace}/timeout`].sort());
    inputs = news;
  });

  test("refresh reads every member from one listing; one killed elsewhere (missed by it, then 404 by its ID) is dropped and ready is lower", async () => {
    const gone = ids(outs).linus!;
    expect((await rest(emu(), "DELETE", `/sandboxes/${gone}`)).status).toBe(204);
    const seq = lastSeq(emu());
    const found = await runtime.read("SandboxFleet", id, outs);
    expect(callsSince(emu(), seq)).toEqual(["GET /v2/sandboxes", `GET /sandboxes/${gone}`]);
    expect(Object.keys(found.props!.sandboxes as Obj).sort()).toEqual(["ada", "grace"]);
    expect(found.props!.ready).toBe(2);
    outs = found.props!;
  });

  test("the next update makes the dropped member again, under a new generation, and nothing else", async () => {
    const seq = lastSeq(emu());
    outs = (await runtime.update("SandboxFleet", id, outs, inputs)).outs;
    expect(writes(seq)).toEqual(["POST /v2/sandboxes"]);
    expect(sandboxOf(ids(outs).linus)!.metadata["pulumi-sandbox.resource"]).toBe(`${KEY}/members/linus#1`);
    expect(outs.ready).toBe(3);
  });

  test("delete deletes every member", async () => {
    const seq = lastSeq(emu());
    await runtime.remove("SandboxFleet", id, outs);
    expect(writes(seq).sort()).toEqual(Object.values(ids(outs)).map((s) => `DELETE /sandboxes/${s}`).sort());
    expect(membersOf(KEY)).toEqual([]);
  });
});

describe("a member dropping a key of the fleet's", () => {
  test("a null in a member's envVars or metadata takes the fleet's key away from that member alone, at preview and in its sandbox", async () => {
    const spec = {
      sandbox: { templateID: "base", timeoutSeconds: 600, envVars: { TEAM: "core", DEBUG: "1" }, metadata: { team: "core", tier: "free" } },
      members: { a: {}, b: { envVars: { DEBUG: null }, metadata: { tier: null } } },
    };
    const inputs = await checked("SandboxFleet", { ...spec, __resource: `${KEY}-drop` });
    expect(writtenInputs(inputs, "b")).toMatchObject({ envVars: { TEAM: "core" }, metadata: { team: "core" } });
    expect(writtenInputs(inputs, "a")).toMatchObject({ envVars: { TEAM: "core", DEBUG: "1" }, metadata: { team: "core", tier: "free" } });
    const { id, outs } = await runtime.create("SandboxFleet", inputs);
    const token = (sandboxID: string) => String(Object.values(outs.sandboxes as Record<string, Obj>).find((m) => m.sandboxID === sandboxID)?.envdAccessToken ?? "");
    const envs = async (sandboxID: string) =>
      (await fetch(`${emu().sandboxUrl}/envs`, { headers: { "E2b-Sandbox-Id": sandboxID, "X-Access-Token": token(sandboxID) } })).json() as Promise<Obj>;
    const { a, b } = ids(outs);
    expect(await envs(a!)).toMatchObject({ TEAM: "core", DEBUG: "1" });
    expect(await envs(b!)).toMatchObject({ TEAM: "core" });
    expect(await envs(b!)).not.toHaveProperty("DEBUG");
    expect(sandboxOf(b)!.metadata).toMatchObject({ team: "core" });
    expect(sandboxOf(b)!.metadata).not.toHaveProperty("tier");
    // The same program again: nothing to do.
    expect(await runtime.diff("SandboxFleet", id, outs, await checked("SandboxFleet", spec, outs))).toMatchObject({ changes: false });
    await runtime.remove("SandboxFleet", id, outs);
  });
});

describe("failure is per member", () => {
  const key = `${KEY}-failing`;
  test("a member with a bad template fails alone: the fleet is recorded with the others, and the error names it", async () => {
    const inputs = await checked("SandboxFleet", { sandbox: { templateID: "base", timeoutSeconds: 600 }, members: { a: {}, b: { templateID: "no-such-template" }, c: {} }, __resource: key });
    const err = await rejection(runtime.create("SandboxFleet", inputs));
    expect(err).toBeInstanceOf(PartialCreateError);
    expect(err.message.split("\n")[0]).toBe("SandboxFleet: 1 of 3 members failed:");
    expect(err.message).toMatch(/^ {2}members\["b"\]: .*no-such-template/m);
    const recorded = err.properties!;
    expect(Object.keys(recorded.sandboxes as Obj).sort()).toEqual(["a", "c"]);
    expect(recorded.__members).toEqual({ b: { spent: 0 } });

    // Fixed: only b is made, under a new generation (its first create's idempotency key was refused).
    const fixed = await checked("SandboxFleet", { sandbox: { templateID: "base", timeoutSeconds: 600 }, members: { a: {}, b: {}, c: {} } }, recorded);
    const seq = lastSeq(emu());
    const { outs } = await runtime.update("SandboxFleet", err.id!, recorded, fixed);
    expect(writes(seq)).toEqual(["POST /v2/sandboxes"]);
    expect(sandboxOf(ids(outs).b)!.metadata["pulumi-sandbox.resource"]).toBe(`${key}/members/b#1`);
    expect(outs.__members).toEqual({ b: { generation: 1 } });
    expect(outs.ready).toBe(3);
    await runtime.remove("SandboxFleet", err.id!, outs);
  });

  test("a provisioning command that exits 1 for some members: their sandboxes are kept, and the next update runs only theirs again", async () => {
    const provision = { commands: [{ command: 'echo run >> ~/runs; test -z "$FAIL" || test -f ~/fixed' }] };
    const spec = { sandbox: { templateID: "base", timeoutSeconds: 600, provision }, members: { a: {}, b: { envVars: { FAIL: "1" } }, c: {} } };
    const inputs = await checked("SandboxFleet", { ...spec, __resource: `${KEY}-provision` });
    const err = await rejection(runtime.create("SandboxFleet", inputs));
    expect(err.message).toMatch(/^ {2}members\["b"\]: Sandbox \S+: provisioning command 1 `echo run .*` exited with code 1\.$/m);
    expect(err.message.split("\n")[0]).toBe("SandboxFleet: 1 of 3 members failed:");
    const recorded = err.properties!;
    const made = ids(recorded);
    expect(Object.keys(made).sort()).toEqual(["a", "b", "c"]);
    expect(recorded.ready).toBe(2);
    const home = (k: string) => `${sandboxOf(made[k])!.rootDir}/home/user`;
    const { writeFileSync, readFileSync } = await import("node:fs");
    writeFileSync(`${home("b")}/fixed`, "");
    const { outs } = await runtime.update("SandboxFleet", err.id!, recorded, await checked("SandboxFleet", spec, recorded));
    expect(ids(outs)).toEqual(made);
    expect(outs.ready).toBe(3);
    expect(Object.fromEntries(["a", "b", "c"].map((k) => [k, readFileSync(`${home(k)}/runs`, "utf8")]))).toEqual({ a: "run\n", b: "run\nrun\n", c: "run\n" });
    await runtime.remove("SandboxFleet", err.id!, outs);
  });
});

describe("parallel members", () => {
  /** The most POST /v2/sandboxes the service handled at once since `seq`. */
  const mostAtOnce = (seq: number) => {
    const creates = emu().calls(seq).filter((c) => c.method === "POST" && c.path === "/v2/sandboxes");
    const edges = creates.flatMap((c) => [[Date.parse(c.time), 1], [Date.parse(c.time) + c.ms, -1]] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let now = 0;
    return Math.max(...edges.map(([, d]) => (now += d)));
  };

  test.each([[4, 4], [1, 1]])("maxParallel %i: at most that many members' calls in flight at once (%i seen)", async (maxParallel, most) => {
    const inputs = await checked("SandboxFleet", { sandbox: { templateID: "base", timeoutSeconds: 600 }, count: 8, maxParallel, __resource: `${KEY}-parallel-${maxParallel}` });
    const seq = lastSeq(emu());
    const { id, outs } = await runtime.create("SandboxFleet", inputs);
    expect(mostAtOnce(seq)).toBe(most);
    await runtime.remove("SandboxFleet", id, outs);
  });

  test("one listing answers every member's look for an interrupted run's sandbox, however long the fleet takes", async () => {
    // Each create moves the clock 20 s on: past the 10 s a list of the stack answers separate Sandboxes' creates.
    const realNow = Date.now.bind(Date);
    let offset = 0;
    const clock = vi.spyOn(Date, "now").mockImplementation(() => realNow() + offset);
    const stop = emu().onRequest((line) => void (line.startsWith("POST /v2/sandboxes ") && (offset += 20_000)));
    const inputs = await checked("SandboxFleet", { sandbox: { templateID: "base", timeoutSeconds: 600 }, count: 3, maxParallel: 1, __resource: `${KEY}-slow` });
    const seq = lastSeq(emu());
    try {
      const { id, outs } = await runtime.create("SandboxFleet", inputs);
      expect(callsSince(emu(), seq).filter((c) => c === "GET /v2/sandboxes")).toHaveLength(1);
      expect(offset).toBe(60_000);
      await runtime.remove("SandboxFleet", id, outs);
    } finally {
      clock.mockRestore();
      stop();
    }
  });

  test("a member paused elsewhere: refresh shows it, ready is lower, and the next update resumes it alone", async () => {
    const inputs = await checked("SandboxFleet", { sandbox: { templateID: "base", timeoutSeconds: 600, state: "running" }, count: 2, __resource: `${KEY}-paused` });
    const { id, outs } = await runtime.create("SandboxFleet", inputs);
    const paused = ids(outs)["1"]!;
    expect((await rest(emu(), "POST", `/sandboxes/${paused}/pause`)).status).toBe(204);
    const found = (await runtime.read("SandboxFleet", id, outs)).props!;
    expect([(found.sandboxes as Record<string, Obj>)["1"]!.state, found.ready]).toEqual(["paused", 1]);
    expect(await runtime.diff("SandboxFleet", id, found, inputs)).toMatchObject({ changes: true, detailedDiff: { "sandbox.state": "update" } });
    const seq = lastSeq(emu());
    const updated = (await runtime.update("SandboxFleet", id, found, inputs)).outs;
    expect(writes(seq)).toEqual([`POST /sandboxes/${paused}/connect`]);
    expect(updated.ready).toBe(2);
    await runtime.remove("SandboxFleet", id, updated);
  });
});

describe("a killed create", () => {
  test("stops at the next member when the engine is gone and claims none; the re-run adopts each and makes the rest, each member once", async () => {
    const key = `${KEY}-killed`;
    const first = await checked("SandboxFleet", { sandbox: { templateID: "base", timeoutSeconds: 600 }, count: 12, maxParallel: 2, __resource: key });
    const controller = new AbortController();
    const seq = lastSeq(emu());
    const stop = setInterval(() => {
      if (membersOf(key).length >= 4) controller.abort(new Error(ENGINE_GONE));
    }, 5);
    const err = await rejection(runAsOperation({ signal: controller.signal, why: () => ENGINE_GONE, urn: "urn:x" }, () => runtime.create("SandboxFleet", first)));
    clearInterval(stop);
    const madeByKilled = membersOf(key);
    expect(madeByKilled.length).toBeGreaterThanOrEqual(4);
    expect(madeByKilled.length).toBeLessThan(12);
    expect(err.message).toContain(`not started: ${ENGINE_GONE}`);

    // The re-run checks the fleet anew (the killed create was never recorded): another nonce.
    const again = await checked("SandboxFleet", { sandbox: { templateID: "base", timeoutSeconds: 600 }, count: 12, maxParallel: 2, __resource: key });
    expect(again.__nonce).not.toBe(first.__nonce);
    const { id, outs } = await runtime.create("SandboxFleet", again);
    const all = Object.values(ids(outs));
    expect(all).toEqual(expect.arrayContaining(madeByKilled));
    expect(new Set(all).size).toBe(12);
    expect(membersOf(key)).toEqual([...all].sort());
    expect(callsSince(emu(), seq).filter((c) => c === "POST /v2/sandboxes")).toHaveLength(12);
    await runtime.remove("SandboxFleet", id, outs);
  });
});

describe("a member replaced among more members than one page of the stack's list holds", () => {
  const key = `${KEY}-pages`;
  const spec = (editor: string) => ({
    sandbox: { templateID: "base", timeoutSeconds: 600 }, maxParallel: 64,
    members: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`m${i}`, i === 0 ? { envVars: { EDITOR: editor } } : {}])),
  });
  /** The metadata each GET /v2/sandboxes since `seq` filtered by. */
  const listedBy = (seq: number) => emu().calls(seq).filter((c) => c.method === "GET" && c.path.startsWith("/v2/sandboxes"))
    .map((c) => new URL(c.path, "http://x").searchParams.get("metadata"));

  test("is looked for by its marker, not through the stack's 2 pages; killed after its create, the re-run adopts it: made once", async () => {
    const { id, outs } = await runtime.create("SandboxFleet", await checked("SandboxFleet", { ...spec("vi"), __resource: key }));
    const old = ids(outs).m0!;
    const news = await checked("SandboxFleet", spec("emacs"), outs);
    // The engine goes once the replacement's create is sent: that create finishes, and nothing records the update.
    const controller = new AbortController();
    const stop = emu().onRequest((line) => void (line.startsWith("POST /v2/sandboxes ") && controller.abort(new Error(ENGINE_GONE))));
    const seq = lastSeq(emu());
    try {
      await runAsOperation({ signal: controller.signal, why: () => ENGINE_GONE, urn: "urn:x" }, () => runtime.update("SandboxFleet", id, outs, news));
    } finally {
      stop();
    }
    const made = membersOf(key).filter((s) => sandboxOf(s)!.metadata["pulumi-sandbox.resource"] === `${key}/members/m0#1`);
    expect(made).toHaveLength(1);
    const marker = `pulumi-sandbox.resource=${encodeURIComponent(`${key}/members/m0#1`)}`;
    expect(listedBy(seq)).toEqual([marker]);

    // The re-run, from the state the killed update left unchanged, finds it by its marker and adopts it.
    const again = (await runtime.update("SandboxFleet", id, outs, news)).outs;
    expect(ids(again).m0).toBe(made[0]);
    expect(ids(again).m0).not.toBe(old);
    expect(callsSince(emu(), seq).filter((c) => c === "POST /v2/sandboxes")).toHaveLength(1);
    expect(listedBy(seq)).toEqual([marker, marker]);
    expect(membersOf(key)).toEqual(Object.values(ids(again)).sort());
    await runtime.remove("SandboxFleet", id, again);
  });
});
