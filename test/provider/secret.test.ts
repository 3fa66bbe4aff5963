/**
 * Secret through the provider's methods against the emulator: what `check` refuses (naming the
 * field, never the value) and lets through at preview, create, read (the value is never read back),
 * a new value as one in-place update, a new name as a replacement, gone after a delete elsewhere
 * (refresh drops it, an update says so), delete. No call, answer, log line or error holds the value
 * except the one input state keeps (encrypted by the engine: e2e secret).
 */
import { describe, expect, test } from "vitest";
import { withKnownInputs } from "../../provider/plugin/adapter";
import { SPECS } from "../../provider/kinds";
import { secretKeys } from "../../provider/runtime/secrets";
import { UNKNOWN } from "../../provider/spec";
import { callsSince, capturedStderr, checked, checkReasons, emulatorForFile, expectPlainJSON, lastSeq, loseAnswerTo, rejection, rest, runtime } from "./harness";

const emu = emulatorForFile();
const stderr = capturedStderr();
const VALUE = "s3cr3t-9c1e-provider";
const NEXT = "s3cr3t-77ab-rotated";

type Obj = Record<string, unknown>;

/** Everything a secret's answers show, by ID: metadata only. */
async function metadataOf(id: string): Promise<{ status: number; text: string }> {
  const res = await rest(emu(), "GET", `/secrets/${id}`);
  return { status: res.status, text: await res.text() };
}

/**
 * Outputs without the fields that must hold the value: `value` (state keeps it for the diff) and
 * `__secrets` (the class's list of the program's secrets), both stored secret (see the test below).
 */
const besidesValue = (outs: Obj) => JSON.stringify({ ...outs, value: undefined, __secrets: undefined });

describe("check", () => {
  test("a bad name, value or metadata fails naming the field, never the value, before any call", async () => {
    const since = lastSeq(emu());
    expect(await checkReasons("Secret", { name: "Api-Token", value: 7 })).toEqual([
      "name: may contain only lowercase letters, digits, '_' and '-' (the service stores names lower-cased)",
      "value: must be a string",
    ]);
    expect(await checkReasons("Secret", { name: "sec_mine", value: VALUE, metadata: { k: "v".repeat(1025) } })).toEqual([
      "name: must not start with 'sec_': the service keeps that prefix for secret IDs",
      "metadata: values must be at most 1024 bytes",
    ]);
    expect(await checkReasons("Secret", {})).toEqual(["value: is required"]);
    expect(callsSince(emu(), since)).toEqual([]);
  });

  test("at preview, a value not known yet passes; a missing name is filled with a stable auto-name", async () => {
    expect(await checked("Secret", { value: UNKNOWN, name: "later" })).toMatchObject({ value: UNKNOWN, name: "later" });
    const a = await checked("Secret", { value: VALUE, __resource: "proj/dev/api-token" });
    expect(a.name).toMatch(/^api-token-[0-9a-f]{8}$/);
    expect((await checked("Secret", { value: VALUE, __resource: "proj/dev/api-token" })).name).toBe(a.name);
  });

  test("the value is secret both ways, even when the program gave it in plain text: wrapped by the class, and answered secret", () => {
    expect(SPECS.Secret.secretInputs).toEqual(["value"]);
    expect([...secretKeys("Secret", { value: VALUE, name: "plain" })]).toEqual(["value"]);
  });
});

describe("lifecycle", () => {
  let inputs: Obj;
  let made: { id: string; outs: Obj };

  test("create sends one POST /secrets; outputs report its ID and version", async () => {
    inputs = await checked("Secret", { value: VALUE, metadata: { owner: "ci" }, __resource: "proj/dev/token", __secrets: [VALUE] });
    const since = lastSeq(emu());
    made = await runtime.create("Secret", inputs);
    expect(callsSince(emu(), since)).toEqual(["POST /secrets"]);
    expect(made.id).toMatch(/^sec_[0-9a-z]{26}$/);
    expect(made.outs).toMatchObject({ secretID: made.id, name: inputs.name, currentVersion: 1, metadata: { owner: "ci" }, value: VALUE });
    expectPlainJSON(made.outs);
    expect(besidesValue(made.outs)).not.toContain(VALUE);
    expect(await metadataOf(made.id)).toMatchObject({ status: 200 });
    expect((await metadataOf(made.id)).text).not.toContain(VALUE);
  });

  test("read finds it and keeps the program's value; an unchanged program diffs as no change", async () => {
    const read = await runtime.read("Secret", made.id, made.outs);
    expect(read).toEqual({ id: made.id, props: made.outs });
    expect(await runtime.diff("Secret", made.id, made.outs, inputs)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  });

  test("read by its ID alone (import) has no value, so the program's is an update in place (what the service holds is unknown)", async () => {
    const imported = await runtime.read("Secret", made.id, {});
    expect(imported.props).toMatchObject({ secretID: made.id, name: inputs.name, metadata: { owner: "ci" } });
    expect(imported.props).not.toHaveProperty("value");
    const olds = withKnownInputs("Secret", imported.props!, undefined, inputs);
    expect(olds).not.toHaveProperty("value");
    expect(await runtime.diff("Secret", made.id, olds, inputs)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });

  test("a new value is one in-place update: same ID, version 2, metadata kept", async () => {
    const news = await checked("Secret", { ...inputs, value: NEXT, __secrets: [NEXT] });
    expect(await runtime.diff("Secret", made.id, made.outs, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const since = lastSeq(emu());
    const { outs } = await runtime.update("Secret", made.id, made.outs, news);
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([`POST /secrets/${made.id}`]);
    expect(outs).toMatchObject({ secretID: made.id, currentVersion: 2, metadata: { owner: "ci" }, value: NEXT });
    expect(besidesValue(outs)).not.toContain(NEXT);
    made = { id: made.id, outs };
    inputs = news;
  });

  test("dropping the metadata clears it on the service", async () => {
    const news = { ...inputs, metadata: undefined };
    const { outs } = await runtime.update("Secret", made.id, made.outs, news);
    expect(outs).toMatchObject({ currentVersion: 3 });
    expect(JSON.parse((await metadataOf(made.id)).text)).toMatchObject({ metadata: {}, currentVersion: 3 });
  });

  test("a new name replaces it, the new one made first (the old one's name is not in its way)", async () => {
    expect(await runtime.diff("Secret", made.id, made.outs, { ...inputs, name: "renamed" }))
      .toEqual({ changes: true, replaces: ["name"], deleteBeforeReplace: false });
  });

  test("deleted elsewhere: an update says so, refresh drops it, delete is done", async () => {
    expect((await rest(emu(), "DELETE", `/secrets/${made.id}`)).status).toBe(204);
    const err = await rejection(runtime.update("Secret", made.id, made.outs, { ...inputs, value: "third" }));
    expect(err.message).toContain(`no longer exists in the service (it was deleted outside Pulumi): run \`pulumi refresh\``);
    expect(await runtime.read("Secret", made.id, made.outs)).toEqual({});
    await runtime.remove("Secret", made.id, made.outs);
  });
});

describe("the value never leaks", () => {
  test("a name in use fails with the service's message, and neither it nor the log holds the value", async () => {
    const first = await runtime.create("Secret", await checked("Secret", { name: "shared", value: VALUE, __secrets: [VALUE] }));
    const err = await rejection(runtime.create("Secret", await checked("Secret", { name: "shared", value: NEXT, __secrets: [NEXT] })));
    expect(err.message).toContain("Secret cannot be modified in its current state");
    expect(err.message).not.toContain(NEXT);
    expect(stderr.text()).not.toContain(VALUE);
    expect(stderr.text()).not.toContain(NEXT);
    await runtime.remove("Secret", first.id, first.outs);
    expect((await metadataOf(first.id)).status).toBe(404);
  });

  test("a lost answer to the create is resolved by name: one secret, no second create", async () => {
    const stop = loseAnswerTo(emu(), "POST /secrets");
    try {
      const made = await runtime.create("Secret", await checked("Secret", { name: "once", value: VALUE, __secrets: [VALUE] }));
      // The one the lost create made, with the program's value written again over it (a second version).
      expect(made.outs).toMatchObject({ name: "once", currentVersion: 2 });
      const listed = (await (await rest(emu(), "GET", "/secrets")).json()) as { name: string }[];
      expect(listed.filter((s) => s.name === "once")).toHaveLength(1);
      await runtime.remove("Secret", made.id, made.outs);
    } finally {
      stop();
    }
    expect(stderr.text()).not.toContain(VALUE);
  });

  test("a lost answer meeting a secret this resource did not make (no claim of its own) takes nothing over and writes nothing", async () => {
    const inputs = await checked("Secret", { value: NEXT, __secrets: [NEXT], __resource: "proj/lost/rotated" });
    const earlier = (await (await rest(emu(), "POST", "/secrets", { name: inputs.name, value: VALUE })).json()) as { secretID: string };
    const since = lastSeq(emu());
    const stop = loseAnswerTo(emu(), "POST /secrets");
    try {
      await expect(runtime.create("Secret", inputs)).rejects.toThrow(
        `secret name "${String(inputs.name)}" is held by another resource's secret ${earlier.secretID}: run \`pulumi up\` again, and this resource gets the next free name`,
      );
      expect(callsSince(emu(), since, { writesOnly: true })).toEqual(["POST /secrets"]);
      expect((await metadataOf(earlier.secretID)).text).toContain('"currentVersion":1');
    } finally {
      stop();
    }
  });
});
