/** Volume: the provider's methods called directly against the emulator. */
import { describe, expect, test } from "vitest";
import { UNKNOWN } from "../../provider/spec";
import {
  checked, checkReasons, emulatorForFile, expectPlainJSON, lastSeq, loseAnswerTo, rejection, rest, runtime, volumeLeftByKilledRun,
} from "./harness";

const emu = emulatorForFile();

describe("check", () => {
  test("an auto-name comes from the resource name and is the same on every run", async () => {
    const first = await checked("Volume", { __resource: "proj/dev/Team Data" });
    expect(first).toMatchObject({ __generation: 0, __auto: ["name"] });
    expect(first.name).toMatch(/^team-data-[0-9a-f]{8}$/);
    expect((await checked("Volume", { __resource: "proj/dev/Team Data" })).name).toBe(first.name);
    expect((await checked("Volume", { __resource: "proj/prod/Team Data" })).name).not.toBe(first.name);
  });

  test("a bad name fails naming the field and the rule", async () => {
    expect(await checkReasons("Volume", { name: "my data" })).toEqual([
      "name: may contain only letters, digits, '_' and '-' (pattern ^[a-zA-Z0-9_-]+$)",
    ]);
    expect(await checkReasons("Volume", { name: "x", size: 3 })).toEqual([
      "size: unknown property of Volume; valid properties are: name, content",
    ]);
  });

  test("a name not known until apply (preview) is let through untouched", async () => {
    const inputs = await checked("Volume", { name: UNKNOWN, __resource: "proj/dev/data" });
    expect(inputs.name).toBe(UNKNOWN);
    expect(inputs.__auto).toBeUndefined();
  });
});

describe("lifecycle", () => {
  let inputs: Record<string, unknown>;
  let id: string;
  let outs: Record<string, unknown>;

  test("create makes the volume and reports its ID, name and token", async () => {
    inputs = await checked("Volume", { name: "lifecycle-data", __resource: "proj/dev/data" });
    ({ id, outs } = await runtime.create("Volume", inputs));
    const made = emu().state.volumes().find((v) => v.name === "lifecycle-data");
    expect(made?.volumeID).toBe(id);
    expect(outs).toMatchObject({ name: "lifecycle-data", volumeId: id, __resource: "proj/dev/data" });
    expect(outs.token).toEqual(expect.any(String));
    expectPlainJSON(outs);
  });

  test("diff: the same inputs are no change; a new name replaces", async () => {
    expect(await runtime.diff("Volume", id, outs, inputs)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    const renamed = await checked("Volume", { name: "other", __resource: "proj/dev/data" }, inputs);
    expect(await runtime.diff("Volume", id, outs, renamed)).toMatchObject({ changes: true, replaces: ["name"] });
  });

  test("read finds it, keeps the stored token (the service mints a new one per GET), and reports no drift", async () => {
    const res = await runtime.read("Volume", id, outs);
    expect(res).toEqual({ id, props: outs });
    expect(await runtime.diff("Volume", id, res.props!, inputs)).toMatchObject({ changes: false });
  });

  test("delete removes it; deleting it again succeeds; read then reports it gone", async () => {
    await runtime.remove("Volume", id, outs);
    expect(emu().state.volumes().map((v) => v.volumeID)).not.toContain(id);
    const since = lastSeq(emu());
    await runtime.remove("Volume", id, outs);
    expect(emu().calls(since).map((c) => [c.method, c.status])).toEqual([["DELETE", 404]]);
    expect(await runtime.read("Volume", id, outs)).toEqual({});
  });
});

describe("creates whose outcome is unknown make one volume", () => {
  test("a lost answer to POST /volumes: the provider finds the volume by name instead of making another", async () => {
    const inputs = await checked("Volume", { __resource: "proj/dev/lost-answer" });
    const since = lastSeq(emu());
    const release = loseAnswerTo(emu(), "POST /volumes");
    const { id } = await runtime.create("Volume", inputs).finally(release);
    const named = emu().state.volumes().filter((v) => v.name === inputs.name);
    expect(named.map((v) => v.volumeID)).toEqual([id]);
    const calls = emu().calls(since);
    expect(calls[0]).toMatchObject({ method: "POST", path: "/volumes", fault: "dropAfter" });
    expect(calls.filter((c) => c.method === "POST")).toHaveLength(1);
  });

  test("a volume holding this resource's auto-name (an interrupted run made it) is adopted", async () => {
    const inputs = await checked("Volume", { __resource: "proj/dev/interrupted" });
    const volumeID = await volumeLeftByKilledRun(emu(), String(inputs.name), "0123456789abcdef");
    const { id } = await runtime.create("Volume", inputs);
    expect(id).toBe(volumeID);
    expect(emu().state.volumes().filter((v) => v.name === inputs.name)).toHaveLength(1);
  });

  test("a name the user chose that is already taken is an error, not an adoption", async () => {
    await rest(emu(), "POST", "/volumes", { name: "taken-by-someone" });
    const inputs = await checked("Volume", { name: "taken-by-someone", __resource: "proj/dev/mine" });
    const err = await rejection(runtime.create("Volume", inputs));
    expect(err.message).toBe("POST /volumes failed (400 invalid_argument): Volume with name 'taken-by-someone' already exists");
    expect(err.id).toBeUndefined();
  });
});
