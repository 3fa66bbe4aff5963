/**
 * Sandbox with `forkFrom`: made by POST /sandboxes/{id}/fork instead of a create, against the emulator,
 * whose forks copy the parent's files and run provisioning as real processes.
 */
import { describe, expect, test } from "vitest";
import { UNKNOWN } from "../../provider/spec";
import { callsSince, checked, checkReasons, emulatorForFile, expectPlainJSON, lastSeq, loseAnswerTo, rejection, rest, runtime } from "./harness";

const emu = emulatorForFile();
const provision = (...commands: string[]) => ({ commands: commands.map((command) => ({ command })) });

describe("check", () => {
  test("forkFrom or templateID, not both; what the fork call cannot set is refused, naming the field", async () => {
    expect(await checkReasons("Sandbox", { timeoutSeconds: 60 })).toEqual([
      "templateID: required: give the template (ID or alias) to create from, or forkFrom to fork a sandbox",
    ]);
    const not = "not allowed with forkFrom: a fork takes its parent's (the fork call sets only the timeout); leave it out";
    expect(await checkReasons("Sandbox", {
      forkFrom: "iabc123", templateID: "base", metadata: { a: "b" }, secure: true, network: { maskRequestHost: "x", allowOut: ["1.1.1.1"] },
    })).toEqual([`templateID: ${not}`, `secure: ${not}`, `metadata: ${not}`, `network.maskRequestHost: ${not}`]);
    expect(await checkReasons("Sandbox", { forkFrom: "" })).toEqual(["forkFrom: must not be empty"]);
    expect(await checkReasons("Sandbox", { forkFrom: "a/b" })).toEqual(["forkFrom: must be a sandbox ID (letters, digits and '-')"]);
  });

  test("a parent not known until apply (preview) counts as given", async () => {
    expect(await checked("Sandbox", { forkFrom: UNKNOWN, timeoutSeconds: 60 })).toMatchObject({ forkFrom: UNKNOWN });
    expect(await checkReasons("Sandbox", { forkFrom: UNKNOWN, envVars: { A: "1" } })).toEqual([
      "envVars: not allowed with forkFrom: a fork takes its parent's (the fork call sets only the timeout); leave it out",
    ]);
  });
});

describe("lifecycle", () => {
  let parent: { id: string; outs: Record<string, unknown> };
  let fork: { id: string; outs: Record<string, unknown> };
  let inputs: Record<string, unknown>;

  test("create forks the parent (no create call), sets the egress rules given, and runs the provisioning in the fork", async () => {
    const parentInputs = await checked("Sandbox", {
      templateID: "base", timeoutSeconds: 120, metadata: { role: "parent" }, provision: provision("echo from parent > /home/user/parent.txt"), __resource: "proj/dev/parent",
    });
    parent = await runtime.create("Sandbox", parentInputs);
    inputs = await checked("Sandbox", {
      forkFrom: parent.id, timeoutSeconds: 90, network: { denyOut: ["10.0.0.0/8"] }, provision: provision("cat /home/user/parent.txt"), __resource: "proj/dev/fork",
    });
    const since = lastSeq(emu());
    fork = await runtime.create("Sandbox", inputs);
    // The fork's mark made in the parent, the fork, the mark taken out of the parent (the fork keeps it:
    // it tells the fork from its parent), the egress rules, the fork's provisioning (left out) and its claim.
    expect(callsSince(emu(), since, { writesOnly: true }).filter((c) => !c.includes("process."))).toEqual([
      "POST /filesystem.Filesystem/MakeDir", `POST /sandboxes/${parent.id}/fork`, "POST /filesystem.Filesystem/Remove",
      `PUT /sandboxes/${fork.id}/network`, "POST /filesystem.Filesystem/MakeDir",
    ]);
    expect(fork.id).not.toBe(parent.id);
    expect(fork.outs).toMatchObject({ sandboxID: fork.id, forkFrom: parent.id, state: "running", provisioned: true });
    expect(fork.outs.provisionResults).toMatchObject([{ exitCode: 0, stdoutTail: "from parent\n" }]);
    expect(fork.outs.templateID).toBeUndefined();
    const record = emu().state.sandboxes().find((s) => s.sandboxID === fork.id)!;
    expect(record.network).toMatchObject({ denyOut: ["10.0.0.0/8"] });
    expect(Date.parse(String(fork.outs.endAt)) - Date.parse(String(fork.outs.startedAt))).toBe(90_000);
    expectPlainJSON(fork.outs);
  });

  test("read reports no drift: the parent's template and metadata are not the fork's inputs", async () => {
    const read = await runtime.read("Sandbox", fork.id, fork.outs);
    expect(read.props).toEqual(fork.outs);
  });

  test("a new forkFrom replaces; the timeout changes in place", async () => {
    const diff = (news: Record<string, unknown>) => runtime.diff("Sandbox", fork.id, fork.outs, news);
    expect(await diff(inputs)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect(await diff({ ...inputs, forkFrom: "iother" })).toMatchObject({ changes: true, replaces: ["forkFrom"] });
    expect(await diff({ ...inputs, timeoutSeconds: 300 })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });

  test("a fork whose answer was lost is found by the mark it carries: one fork call, no second fork", async () => {
    const lostInputs = await checked("Sandbox", { forkFrom: parent.id, timeoutSeconds: 90, __resource: "proj/dev/lost-fork" });
    const before = new Set(emu().state.sandboxes().map((s) => s.sandboxID));
    const since = lastSeq(emu());
    // Armed once the mark is in the parent: the fork call is the next platform call.
    const release = loseAnswerTo(emu(), `POST /sandboxes/${parent.id}/fork`, "POST /filesystem.Filesystem/MakeDir");
    const lost = await runtime.create("Sandbox", lostInputs).finally(release);
    expect(emu().calls(since).filter((c) => c.method === "POST" && c.path.endsWith("/fork"))).toMatchObject([{ fault: "dropAfter", status: 201 }]);
    expect(emu().state.sandboxes().map((s) => s.sandboxID).filter((id) => !before.has(id))).toEqual([lost.id]);
    expect(lost.outs).toMatchObject({ sandboxID: lost.id, forkFrom: parent.id, state: "running" });
    expect(lost.outs.envdAccessToken).toMatch(/.+/);
    await runtime.remove("Sandbox", lost.id, lost.outs);
  });

  test("a paused parent is refused with the service's reason, and nothing is made", async () => {
    expect((await rest(emu(), "POST", `/sandboxes/${parent.id}/pause`)).status).toBe(204);
    const before = emu().state.sandboxes().length;
    const err = await rejection(runtime.create("Sandbox", await checked("Sandbox", { forkFrom: parent.id, __resource: "proj/dev/fork2" })));
    expect(err.message).toContain(`Sandbox '${parent.id}' is paused and cannot be forked; resume it first`);
    expect(emu().state.sandboxes()).toHaveLength(before);
  });

  test("delete kills the fork only", async () => {
    await runtime.remove("Sandbox", fork.id, fork.outs);
    expect(emu().state.sandboxes().map((s) => s.sandboxID)).toEqual([parent.id]);
  });
});
