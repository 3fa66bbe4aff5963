/**
 * A Snapshot create run again after its first attempt took the snapshot but never reached the state
 * (an answer lost, a killed `up`): the service never expires a snapshot, so one the state does not
 * record would be billed forever. An unnamed snapshot is named from the resource's key and generation
 * and what it is made from (provider/kinds/snapshot/auto-name.ts), so the re-run, checked anew (a new
 * nonce, the same key and generation), finds it and adopts it, as no finished create claimed it
 * (provider/kinds/snapshot/claim.ts); a replacement, made from other inputs, gets another name. A new
 * resource under a renamed one's first name finds the renamed one's claimed, and takes its own. State written before the auto-name keeps no name and plans no change. Through the
 * real engine: e2e snapshot-rerun.test.ts.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { autoSnapshotName } from "../../provider/kinds/snapshot/auto-name";
import type { InputsOf } from "../../provider/runtime/handlers";
import { ENGINE_GONE, runAsOperation } from "../../provider/runtime/operation";
import { callsSince, capturedStderr, checked, emulatorForFile, lastSeq, loseAnswerTo, rest, runtime } from "./harness";

const emu = emulatorForFile();
const stderr = capturedStderr();

type Obj = Record<string, unknown>;

/** A running sandbox, made outside the provider. */
async function sandbox(): Promise<string> {
  const res = await rest(emu(), "POST", "/sandboxes", { templateID: "base", timeout: 600 });
  expect(res.status).toBe(201);
  return ((await res.json()) as { sandboxID: string }).sandboxID;
}

/** The snapshots the service lists (one row each, with its newest build), newest first. */
async function listed(query = ""): Promise<{ snapshotID: string; names: string[] }[]> {
  const res = await rest(emu(), "GET", `/snapshots${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as { snapshotID: string; names: string[] }[];
}

/** How many builds of snapshots the emulator keeps files of (every build of every snapshot). */
const builds = () => readdirSync(join(emu().dataDir, "sandbox-snapshots")).length;

/**
 * Runs `create` as a killed `up` does: the engine goes away once the snapshot of `box` is taken, so the
 * create ends without its claim (provider/kinds/snapshot/claim.ts), as its provider, living on, sees it.
 */
async function asKilledRun<T>(box: string, create: () => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const stop = emu().onRequest((line) => void (line.startsWith(`POST /sandboxes/${box}/snapshots `) && controller.abort(new Error(ENGINE_GONE))));
  try {
    return await runAsOperation({ signal: controller.signal, why: () => ENGINE_GONE }, create);
  } finally {
    stop();
  }
}

const snapshotPosts = (calls: string[]) => calls.filter((c) => /^POST \/sandboxes\/[^/]+\/snapshots$/.test(c));

describe("an unnamed Snapshot's create run again", () => {
  test("whose answer was lost: the create finds its snapshot by its auto-name, and there is one", async () => {
    const box = await sandbox();
    const inputs = await checked("Snapshot", { sandboxID: box, __resource: "proj/dev/lost-snap" });
    const since = lastSeq(emu());
    const stop = loseAnswerTo(emu(), `POST /sandboxes/${box}/snapshots`, "GET /snapshots");
    let made: { id: string; outs: Obj };
    try {
      made = await runtime.create("Snapshot", inputs);
    } finally {
      stop();
    }
    // The look-up, the snapshot (its answer lost), the look-up that finds it, then its claim (provider/kinds/snapshot/claim.ts).
    expect(callsSince(emu(), since)).toEqual(["GET /snapshots", `POST /sandboxes/${box}/snapshots`, "GET /snapshots", `GET /sandboxes/${box}`, "POST /filesystem.Filesystem/MakeDir"]);
    expect(emu().calls(since).map((c) => c.fault ?? "")).toEqual(["", "dropAfter", "", "", ""]);
    expect(made.id).toBe(`emulator/${autoSnapshotName(inputs as InputsOf<"Snapshot">)}:default`);
    expect(await listed()).toEqual([{ snapshotID: made.id, names: [made.id.split(":")[0]] }]);
    expect(builds()).toBe(1);
    await runtime.remove("Snapshot", made.id, made.outs);
    expect(await listed()).toEqual([]);
    expect(builds()).toBe(0);
  });

  test("after a killed run took it: the re-run (checked anew) adopts it with no snapshot call; delete leaves none", async () => {
    const box = await sandbox();
    const given = { sandboxID: box, triggers: { round: "1" }, __resource: "proj/dev/killed-snap" };
    // What the killed run did: the whole create, whose answer never reached the state (nor its claim).
    const killed = await asKilledRun(box, async () => runtime.create("Snapshot", await checked("Snapshot", given)));
    stderr.clear();
    const since = lastSeq(emu());
    const inputs = await checked("Snapshot", given); // a new nonce, the same key and generation
    const rerun = await runtime.create("Snapshot", inputs);
    expect(snapshotPosts(callsSince(emu(), since))).toEqual([]);
    expect(rerun).toMatchObject({ id: killed.id, outs: { sandboxID: box, triggers: { round: "1" }, __nonce: inputs.__nonce, snapshotID: killed.id, names: killed.outs.names } });
    expect(stderr.text()).toContain(`adopting snapshot ${killed.id}, taken of sandbox ${box} by an interrupted run of this resource`);
    expect(await listed()).toEqual([{ snapshotID: killed.id, names: killed.outs.names }]);
    expect(builds()).toBe(1);
    await runtime.remove("Snapshot", rerun.id, rerun.outs);
    expect(await listed()).toEqual([]);
    expect(builds()).toBe(0);
  });

  test("after a killed run took it from other inputs: not adopted; the re-run takes its own, under its own name", async () => {
    const box = await sandbox();
    const given = { sandboxID: box, triggers: { round: "1" }, __resource: "proj/dev/edited-snap" };
    const killed = await runtime.create("Snapshot", await checked("Snapshot", given));
    // The program edited before the re-run: other triggers (or a sandbox made anew).
    const rerun = await runtime.create("Snapshot", await checked("Snapshot", { ...given, triggers: { round: "2" } }));
    expect(rerun.id).not.toBe(killed.id);
    // The same resource's name, another digest of what it is made from.
    const [resourcePart] = /^.*-[0-9a-f]{8}(?=-[0-9a-f]{8}:default$)/.exec(killed.id) ?? [];
    expect(resourcePart).toBeTruthy();
    expect(rerun.id.startsWith(`${resourcePart}-`)).toBe(true);
    await runtime.remove("Snapshot", rerun.id, rerun.outs);
    // What the killed run took from the old inputs is not this create's to delete (a replacement's
    // predecessor looks the same); its name says whose it is.
    expect(await listed()).toEqual([{ snapshotID: killed.id, names: killed.outs.names }]);
    await runtime.remove("Snapshot", killed.id, killed.outs);
  });

  test("a new resource under a renamed one's first name: the renamed one's snapshot is claimed, so it takes its own under the next name", async () => {
    const box = await sandbox();
    // One key, two resources: the renamed one (its create finished: claimed) and a new one under its first name.
    const given = { sandboxID: box, __resource: "proj/dev/shared-snap" };
    const renamed = await runtime.create("Snapshot", await checked("Snapshot", given));
    stderr.clear();
    const fresh = await runtime.create("Snapshot", await checked("Snapshot", given));
    const alias = renamed.id.slice(renamed.id.indexOf("/") + 1, renamed.id.lastIndexOf(":"));
    expect(fresh.id).toBe(`emulator/${alias}-2:default`);
    expect(stderr.text()).toContain(
      `warning: snapshot name "${alias}" is held by another resource's snapshot (taken under this resource's first name, e.g. before a rename with aliases), so this one is "${alias}-2"`,
    );
    // Deleting the new one leaves the renamed one's.
    await runtime.remove("Snapshot", fresh.id, fresh.outs);
    expect(await listed()).toEqual([{ snapshotID: renamed.id, names: renamed.outs.names }]);
    await runtime.remove("Snapshot", renamed.id, renamed.outs);
  });

  test("a replacement, checked afresh as the engine does (the same generation), gets another name: made first, the old one deleted after", async () => {
    const box = await sandbox();
    const old = await runtime.create("Snapshot", await checked("Snapshot", { sandboxID: box, __resource: "proj/dev/replaced-snap" }));
    const given = { sandboxID: box, triggers: { round: "2" }, __resource: "proj/dev/replaced-snap" };
    expect(await runtime.diff("Snapshot", old.id, old.outs, await checked("Snapshot", given, old.outs))).toMatchObject({ replaces: ["triggers"], deleteBeforeReplace: false });
    // The engine checks a replacement's inputs again without the old state.
    const news = await checked("Snapshot", given);
    expect(news.__generation).toBe(0);
    const made = await runtime.create("Snapshot", news);
    expect(made.id).not.toBe(old.id);
    await runtime.remove("Snapshot", old.id, old.outs);
    expect(await listed()).toEqual([{ snapshotID: made.id, names: made.outs.names }]);
    await runtime.remove("Snapshot", made.id, made.outs);
    expect(builds()).toBe(0);
  });
});

describe("a Snapshot taken before the auto-name", () => {
  test("its state gets no name from check, and plans no change", async () => {
    const box = await sandbox();
    const res = await rest(emu(), "POST", `/sandboxes/${box}/snapshots`, {});
    const { snapshotID } = (await res.json()) as { snapshotID: string };
    const olds = { sandboxID: box, __resource: "proj/dev/old-snap", __generation: 0, __nonce: "0123456789abcdef", snapshotID, names: [] };
    const news = await checked("Snapshot", { sandboxID: box, __resource: "proj/dev/old-snap" }, olds);
    expect(news).not.toHaveProperty("name");
    expect(news).not.toHaveProperty("__auto");
    expect(await runtime.diff("Snapshot", snapshotID, olds, news)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect((await runtime.read("Snapshot", snapshotID, olds)).props).toMatchObject({ snapshotID, names: [] });
    await runtime.remove("Snapshot", snapshotID, olds);
  });
});
