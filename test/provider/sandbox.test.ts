/**
 * Sandbox: the provider's methods called directly against the emulator, whose sandboxes run their
 * provisioning commands as real processes. Sandboxes here are made from the built-in `base` template.
 */
import { describe, expect, test } from "vitest";
import { madeFrom } from "../../provider/kinds/sandbox/sandbox";
import { idempotencyKeyOf } from "../../provider/kinds/identity";
import { standingOf } from "../../provider/kinds/sandbox/claim";
import { UNKNOWN } from "../../provider/spec";
import {
  callsSince, checked, checkReasons, emulatorForFile, expectPlainJSON, lastSeq, loseAnswerTo, PROVIDER_TEXT, rejection, rest, runtime,
} from "./harness";

const emu = emulatorForFile();

const running = () => emu().state.sandboxes().map((s) => s.sandboxID);
const provision = (...commands: Record<string, unknown>[]) => ({ commands });

describe("check", () => {
  test("defaults of provisioning: 300 s per command, keep the sandbox on failure", async () => {
    const inputs = await checked("Sandbox", { templateID: "base", provision: provision({ command: "true" }), __resource: "proj/dev/box" });
    expect(inputs).toMatchObject({
      templateID: "base", provision: { commands: [{ command: "true", timeoutSeconds: 300 }], onFailure: "keep" }, __generation: 0,
    });
  });

  test("each failure names the field path and the rule; cross-field rules too", async () => {
    expect(await checkReasons("Sandbox", {
      templateID: "base", timeout: 0, provision: { commands: [{ command: "", timeoutSeconds: 1.5 }], onFailure: "retry" },
    })).toEqual([
      "timeout: must be greater than 0 (the service refuses 0)",
      "provision.commands[0].command: must not be empty",
      "provision.commands[0].timeoutSeconds: must be a whole number of seconds",
      "provision.onFailure: must be \"keep\" or \"delete\"",
    ]);
    expect(await checkReasons("Sandbox", { templateID: "base", network: { allowPublicTraffic: false } })).toEqual([
      "network.allowPublicTraffic: false requires secure: true (the service refuses it otherwise)",
    ]);
  });

  test("values not known until apply (preview) pass; the known ones are still checked", async () => {
    const inputs = await checked("Sandbox", { templateID: UNKNOWN, metadata: { owner: UNKNOWN } });
    expect(inputs).toMatchObject({ templateID: UNKNOWN, metadata: { owner: UNKNOWN } });
    expect(await checkReasons("Sandbox", { templateID: UNKNOWN, timeout: -1 })).toEqual([
      "timeout: must be greater than 0 (the service refuses 0)",
    ]);
  });
});

describe("lifecycle", () => {
  let inputs: Record<string, unknown>;
  let id: string;
  let outs: Record<string, unknown>;

  test("create makes a marked sandbox and runs its provisioning inside it", async () => {
    inputs = await checked("Sandbox", {
      templateID: "base", timeout: 120, metadata: { purpose: "test" },
      provision: provision({ command: "echo hello from $HOSTNAME_IS_UNSET provisioning" }, { command: "echo second; echo warn >&2" }),
      __resource: "proj/dev/box",
    });
    ({ id, outs } = await runtime.create("Sandbox", inputs));
    expect(running()).toEqual([id]);
    expect(emu().state.sandboxes()[0]!.metadata).toEqual({
      purpose: "test", "pulumi-sandbox.resource": "proj/dev/box#0", "pulumi-sandbox.stack": "proj/dev", "pulumi-sandbox.inputs": madeFrom(inputs),
      "pulumi-sandbox.nonce": inputs.__nonce,
    });
    // Its finished create claimed it (provider/kinds/sandbox/claim.ts): a later create under the same marker leaves it alone.
    expect(await standingOf(id)).toBe("claimed");
    expect(madeFrom(inputs)).toMatch(/^~key:[0-9a-f]{8},metadata:[0-9a-f]{8},templateID:[0-9a-f]{8}$/); // digests only: no input value in plaintext
    expect(outs).toMatchObject({ sandboxID: id, state: "running", provisioned: true, metadata: { purpose: "test" }, __provider: PROVIDER_TEXT });
    expect(outs.provisionResults).toMatchObject([
      { command: "echo hello from $HOSTNAME_IS_UNSET provisioning", exitCode: 0, stdoutTail: "hello from provisioning\n", stderrTail: "" },
      { command: "echo second; echo warn >&2", exitCode: 0, stdoutTail: "second\n", stderrTail: "warn\n" },
    ]);
    expectPlainJSON(outs);
  });

  test("diff: same inputs are no change; timeout and provision update in place; triggers and templateID replace", async () => {
    const diff = (news: Record<string, unknown>) => runtime.diff("Sandbox", id, outs, news);
    expect(await diff(inputs)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect(await diff({ ...inputs, timeout: 300 })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const commands = provision({ command: "echo third", timeoutSeconds: 300 });
    expect(await diff({ ...inputs, provision: { ...commands, onFailure: "keep" } })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(await diff({ ...inputs, provision: { ...(inputs.provision as object), triggers: ["v2"] } })).toMatchObject({ changes: true, replaces: ["provision.triggers"] });
    expect(await diff({ ...inputs, templateID: "other" })).toMatchObject({ changes: true, replaces: ["templateID"] });
    // At preview a value not yet known may differ: it counts as a change, and as a replacement where it forces one.
    expect(await diff({ ...inputs, templateID: UNKNOWN })).toMatchObject({ changes: true, replaces: ["templateID"] });
  });

  test("read finds it and reports no drift", async () => {
    const res = await runtime.read("Sandbox", id, outs);
    expect(res.id).toBe(id);
    expect(res.props).toMatchObject({ sandboxID: id, templateID: "base", metadata: { purpose: "test" }, provisioned: true });
    expect(await runtime.diff("Sandbox", id, res.props!, inputs)).toMatchObject({ changes: false });
    expectPlainJSON(res.props);
  });

  test("update of timeout is one POST /sandboxes/{id}/timeout, and the new end shows", async () => {
    const since = lastSeq(emu());
    const res = await runtime.update("Sandbox", id, outs, { ...inputs, timeout: 600 });
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([`POST /sandboxes/${id}/timeout`]);
    const endsIn = Date.parse(String(res.outs.endAt)) - Date.now();
    expect(endsIn).toBeGreaterThan(590_000);
    expect(endsIn).toBeLessThanOrEqual(600_000);
    expect(res.outs).toMatchObject({ timeout: 600, provisioned: true });
    expectPlainJSON(res.outs);
    outs = res.outs;
    inputs = { ...inputs, timeoutSeconds: 600 };
  });

  test("update of provision re-runs it in the same sandbox", async () => {
    const news = await checked("Sandbox", { ...inputs, provision: provision({ command: "echo re-provisioned" }) }, inputs);
    const res = await runtime.update("Sandbox", id, outs, news);
    expect(running()).toEqual([id]);
    expect(res.outs).toMatchObject({ sandboxID: id, provisioned: true, provisionResults: [{ command: "echo re-provisioned", exitCode: 0, stdoutTail: "re-provisioned\n" }] });
    outs = res.outs;
  });

  test("delete kills it; deleting it again succeeds (404 is done); read then reports it gone", async () => {
    await runtime.remove("Sandbox", id, outs);
    expect(running()).toEqual([]);
    const since = lastSeq(emu());
    await runtime.remove("Sandbox", id, outs);
    expect(emu().calls(since).map((c) => [c.method, c.status])).toEqual([["DELETE", 404]]);
    expect(await runtime.read("Sandbox", id, outs)).toEqual({});
  });
});

describe("failing provisioning", () => {
  const failing = { command: "echo step one done; echo cannot reach mirror >&2; exit 7" };

  test("a non-zero exit: partial creation with the command, the exit code and the last output; provisioned false", async () => {
    const inputs = await checked("Sandbox", { templateID: "base", provision: provision({ command: "echo fine" }, failing), __resource: "proj/dev/fails" });
    const err = await rejection(runtime.create("Sandbox", inputs));
    expect(running()).toEqual([err.id]);
    expect(err.message).toBe(
      `Sandbox ${err.id}: provisioning command 2 \`${failing.command}\` exited with code 7; last output:\n` +
        "step one done\ncannot reach mirror\nThe sandbox is kept; the next `pulumi up` runs the provisioning again.",
    );
    expect(err.properties).toMatchObject({
      sandboxID: err.id, provisioned: false, __provider: PROVIDER_TEXT,
      provisionResults: [{ exitCode: 0, stdoutTail: "fine\n" }, { command: failing.command, exitCode: 7, stdoutTail: "step one done\n", stderrTail: "cannot reach mirror\n" }],
    });
    expectPlainJSON(err.properties, "properties");

    // The next `up` updates the recorded sandbox; a fixed command finishes the job in the same sandbox.
    const fixed = await checked("Sandbox", { templateID: "base", provision: provision({ command: "echo fine" }, { command: "echo fixed" }), __resource: "proj/dev/fails" }, inputs);
    const res = await runtime.update("Sandbox", err.id!, err.properties!, fixed);
    expect(res.outs).toMatchObject({ sandboxID: err.id, provisioned: true, provisionResults: [{ exitCode: 0 }, { exitCode: 0, stdoutTail: "fixed\n" }] });
    await runtime.remove("Sandbox", err.id!, res.outs);
  });

  test("unchanged inputs after a failed provisioning still re-run it on update", async () => {
    const inputs = await checked("Sandbox", { templateID: "base", provision: provision(failing), __resource: "proj/dev/fails-again" });
    const err = await rejection(runtime.create("Sandbox", inputs));
    expect(await runtime.diff("Sandbox", err.id!, err.properties!, inputs)).toMatchObject({ changes: false });
    const again = await rejection(runtime.update("Sandbox", err.id!, err.properties!, inputs));
    expect(again.message).toBe(
      `Sandbox ${err.id}: provisioning command 1 \`${failing.command}\` exited with code 7; last output:\n` +
        "step one done\ncannot reach mirror\nThe next `pulumi up` runs the provisioning again.",
    );
    expect(again).toMatchObject({ id: err.id, properties: { provisioned: false, __provider: PROVIDER_TEXT } });
    await runtime.remove("Sandbox", err.id!, err.properties!);
  });

  test("with onFailure \"delete\" the sandbox is killed and the error says so", async () => {
    const inputs = await checked("Sandbox", { templateID: "base", provision: { ...provision(failing), onFailure: "delete" }, __resource: "proj/dev/doomed" });
    const before = lastSeq(emu());
    const err = await rejection(runtime.create("Sandbox", inputs));
    const [made] = emu().calls(before).filter((c) => c.method === "DELETE");
    const id = made!.path.split("/").pop();
    expect(err.message).toBe(
      `Sandbox ${id}: provisioning command 1 \`${failing.command}\` exited with code 7; last output:\n` +
        "step one done\ncannot reach mirror\nThe sandbox was deleted (provision.onFailure: \"delete\").",
    );
    expect(err.id).toBeUndefined(); // nothing for the engine to record
    expect(running()).toEqual([]);
  });

  test("a command past its deadline is killed and reported as a timeout", async () => {
    const inputs = await checked("Sandbox", { templateID: "base", provision: provision({ command: "sleep 30", timeoutSeconds: 1 }), __resource: "proj/dev/slow" });
    const started = Date.now();
    const err = await rejection(runtime.create("Sandbox", inputs));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(err.message).toBe(
      `Sandbox ${err.id}: provisioning command 1 \`sleep 30\` timed out after 1 s (provision.commands[0].timeoutSeconds).\n` +
        "The sandbox is kept; the next `pulumi up` runs the provisioning again.",
    );
    expect(err.properties).toMatchObject({ provisioned: false, provisionResults: [{ command: "sleep 30", exitCode: -1 }] });
    await runtime.remove("Sandbox", err.id!, err.properties!);
  });
});

/** What a killed run's create leaves in a sandbox's metadata: that run's nonce (and, having not finished, no claim inside). */
const KILLED_RUN = { "pulumi-sandbox.nonce": "0123456789abcdef" };

describe("creates whose outcome is unknown make one sandbox", () => {
  test("a lost answer to POST /v2/sandboxes: the repeat with the same idempotency key gets the same sandbox", async () => {
    // A stack of its own: one this process listed in the last 10 s answers from that list, and the
    // answer is lost only after the look-up (the GET) that comes first.
    const inputs = await checked("Sandbox", { templateID: "base", __resource: "proj/lost/lost-answer" });
    const since = lastSeq(emu());
    const release = loseAnswerTo(emu(), "POST /v2/sandboxes", "GET /v2/sandboxes");
    const { id, outs } = await runtime.create("Sandbox", inputs).finally(release);
    expect(running()).toEqual([id]);
    // The create, its answer lost, then the same create again: the service answers it with the sandbox
    // the first one made (tokens included), so nothing is adopted with a connect.
    // The claim (the create finished) comes last.
    expect(emu().calls(since).filter((c) => c.method === "POST")).toMatchObject([
      { path: "/v2/sandboxes", fault: "dropAfter", status: 201 }, { path: "/v2/sandboxes", status: 201 }, { path: "/filesystem.Filesystem/MakeDir", status: 200 },
    ]);
    expect(outs).toMatchObject({ sandboxID: id, provisioned: true });
    expect(outs.envdAccessToken).toMatch(/.+/);
    await runtime.remove("Sandbox", id, outs);
  });

  test("two resources under one key (one renamed away, one new under its old name) never share an idempotency key", async () => {
    const a = await checked("Sandbox", { templateID: "base", __resource: "proj/rename/web" });
    const b = await checked("Sandbox", { templateID: "base", __resource: "proj/rename/web" });
    expect(a.__nonce).toMatch(/^[0-9a-f]{16}$/);
    expect(b.__nonce).not.toBe(a.__nonce);
    expect(idempotencyKeyOf(a)).not.toBe(idempotencyKeyOf(b));
    // Kept from state: the same resource's next check keeps its nonce, so a retry sends the same key.
    const again = await checked("Sandbox", { templateID: "base", __resource: "proj/rename/web" }, a);
    expect(idempotencyKeyOf(again)).toBe(idempotencyKeyOf(a));
    expect(idempotencyKeyOf({ ...a, __generation: 1 })).not.toBe(idempotencyKeyOf(a));
  });

  test("a create of other inputs under the same key, generation and nonce (a killed fleet update run again after an edit) sends a key of its own", async () => {
    // A fleet member's nonce comes from the fleet's state, so the re-run of a killed update has the killed run's.
    const killed = await checked("Sandbox", { templateID: "base", envVars: { GREETING: "one" }, __resource: "proj/edited-member/box" });
    const first = await runtime.create("Sandbox", killed);
    const edited = { ...killed, envVars: { GREETING: "two" } };
    expect(idempotencyKeyOf(killed, "a#60")).not.toBe(idempotencyKeyOf(killed, "b#60"));
    const { id, outs } = await runtime.create("Sandbox", edited);
    // The same key with another body is refused (422 idempotency_request_mismatch): this create was answered.
    expect(id).not.toBe(first.id);
    expect(running()).toContain(id);
    await runtime.remove("Sandbox", id, outs);
    await runtime.remove("Sandbox", first.id, first.outs);
  });

  // Each test here stands for the next `up` after an interruption: a stack this process has not listed yet.
  test("a sandbox an interrupted run made (same marker) is adopted", async () => {
    const inputs = await checked("Sandbox", { templateID: "base", __resource: "proj/interrupted/box" });
    const made = await rest(emu(), "POST", "/sandboxes", {
      templateID: "base",
      metadata: { "pulumi-sandbox.resource": "proj/interrupted/box#0", "pulumi-sandbox.stack": "proj/interrupted", "pulumi-sandbox.inputs": madeFrom(inputs), ...KILLED_RUN },
    });
    const { sandboxID } = (await made.json()) as { sandboxID: string };
    const since = lastSeq(emu());
    const { id, outs } = await runtime.create("Sandbox", inputs);
    expect(id).toBe(sandboxID);
    // Its nonce is another create's: it is the resource's only because no finished create claimed it (the ListDir).
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([
      "POST /filesystem.Filesystem/ListDir", `POST /sandboxes/${sandboxID}/connect`, "POST /filesystem.Filesystem/MakeDir",
    ]);
    await runtime.remove("Sandbox", id, outs);
  });

  test("a sandbox an interrupted run made from other inputs is deleted, and a new one made from these", async () => {
    const old = await checked("Sandbox", { templateID: "base", envVars: { GREETING: "one" }, __resource: "proj/edited/box" });
    const inputs = await checked("Sandbox", { templateID: "base", envVars: { GREETING: "two" }, __resource: "proj/edited/box" }); // edited after the kill
    const made = await rest(emu(), "POST", "/sandboxes", {
      templateID: "base", envVars: { GREETING: "one" },
      metadata: { "pulumi-sandbox.resource": "proj/edited/box#0", "pulumi-sandbox.stack": "proj/edited", "pulumi-sandbox.inputs": madeFrom(old), ...KILLED_RUN },
    });
    const stale = ((await made.json()) as { sandboxID: string }).sandboxID;
    const since = lastSeq(emu());
    const { id, outs } = await runtime.create("Sandbox", inputs);
    expect(id).not.toBe(stale);
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([
      "POST /filesystem.Filesystem/ListDir", `DELETE /sandboxes/${stale}`, "POST /v2/sandboxes", "POST /filesystem.Filesystem/MakeDir",
    ]);
    expect(running()).not.toContain(stale);
    expect(await (await fetch(`${emu().sandboxUrl}/envs`, { headers: { "E2b-Sandbox-Id": id, "X-Access-Token": String(outs.envdAccessToken) } })).json()).toMatchObject({ GREETING: "two" });
    await runtime.remove("Sandbox", id, outs);
  });

  test("one list of the stack answers the creates of an up: an interrupted run's sandboxes are adopted, the others made", async () => {
    const marks = (name: string) => ({
      "pulumi-sandbox.resource": `proj/many/${name}#0`, "pulumi-sandbox.stack": "proj/many", "pulumi-sandbox.inputs": madeFrom({ templateID: "base" }), ...KILLED_RUN,
    });
    const earlier = await Promise.all(["box-0", "box-1"].map(async (name) =>
      ((await (await rest(emu(), "POST", "/sandboxes", { templateID: "base", metadata: marks(name) })).json()) as { sandboxID: string }).sandboxID));
    // Another stack's sandbox with the same resource name is not this stack's.
    await rest(emu(), "POST", "/sandboxes", { templateID: "base", metadata: { "pulumi-sandbox.resource": "proj/other/box-2#0", "pulumi-sandbox.stack": "proj/other" } });
    const names = ["box-0", "box-1", "box-2", "box-3"];
    const inputs = await Promise.all(names.map((name) => checked("Sandbox", { templateID: "base", __resource: `proj/many/${name}` })));
    const since = lastSeq(emu());
    const made = await Promise.all(inputs.map((i) => runtime.create("Sandbox", i)));
    expect(made.slice(0, 2).map((m) => m.id)).toEqual(earlier);
    const calls = callsSince(emu(), since);
    expect(calls.filter((c) => c.startsWith("GET /v2/sandboxes"))).toHaveLength(1);
    expect(calls.filter((c) => c === "POST /v2/sandboxes")).toHaveLength(2);
    expect(calls.filter((c) => c.endsWith("/connect")).sort()).toEqual(earlier.map((id) => `POST /sandboxes/${id}/connect`).sort());
    for (const { id, outs } of made) await runtime.remove("Sandbox", id, outs);
  });
});
