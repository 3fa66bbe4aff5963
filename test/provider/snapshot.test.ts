/**
 * Snapshot through the provider's methods against the emulator: what `check` refuses (naming the
 * field) and lets through at preview (unknowns), create, read, gone after a delete elsewhere, delete,
 * the order of a replacement (diff), and a Sandbox started from the snapshot's ID finding its files.
 * The same through the real engine is e2e (snapshot).
 */
import { describe, expect, test } from "vitest";
import { withKnownInputs } from "../../provider/plugin/adapter";
import { UNKNOWN } from "../../provider/spec";
import { callsSince, checked, checkReasons, emulatorForFile, lastSeq, rejection, rest, runtime } from "./harness";

const emu = emulatorForFile();

type Obj = Record<string, unknown>;

/** The snapshot IDs the service lists, newest first. */
async function listed(): Promise<string[]> {
  const res = await rest(emu(), "GET", "/snapshots");
  expect(res.status).toBe(200);
  return ((await res.json()) as { snapshotID: string }[]).map((s) => s.snapshotID);
}

/** A running sandbox whose home holds `marker` with `text`. */
async function sandboxWithFile(text: string, key: string): Promise<{ id: string; outs: Obj }> {
  const inputs = await checked("Sandbox", { templateID: "base", provision: { commands: [{ command: `echo ${text} > ~/marker` }] }, __resource: key });
  return runtime.create("Sandbox", inputs);
}

describe("check", () => {
  test("a bad name or sandboxID fails naming the field, before any call", async () => {
    const since = lastSeq(emu());
    expect(await checkReasons("Snapshot", { sandboxID: "", name: "My Snap" })).toEqual([
      "sandboxID: must not be empty",
      "name: must be `[namespace/]alias[:tag]`: lowercase letters, digits, '_' and '-' (and '.' in the tag), the namespace being the team's",
    ]);
    expect(await checkReasons("Snapshot", { sandboxID: "i1", memory: true })).toEqual([
      "memory: unknown property of Snapshot; valid properties are: sandboxID, name, mode, triggers",
    ]);
    expect(callsSince(emu(), since)).toEqual([]);
  });

  test("at preview, a sandboxID not known yet passes, and a Sandbox's templateID may be a snapshot's ID", async () => {
    expect(await checked("Snapshot", { sandboxID: UNKNOWN, name: "app:v1" })).toMatchObject({ sandboxID: UNKNOWN, name: "app:v1" });
    expect(await checked("Sandbox", { templateID: "abcdefghij0123456789:default" })).toMatchObject({ templateID: "abcdefghij0123456789:default" });
  });
});

describe("lifecycle", () => {
  let inputs: Obj;
  let made: { id: string; outs: Obj };

  test("create snapshots the sandbox; a Sandbox from its ID has the sandbox's files", async () => {
    const box = await sandboxWithFile("from-the-original", "proj/dev/origin");
    inputs = await checked("Snapshot", { sandboxID: box.id, __resource: "proj/dev/snap" });
    const since = lastSeq(emu());
    made = await runtime.create("Snapshot", inputs);
    // Unnamed, it gets the auto-name (provider/kinds/snapshot/auto-name.ts), looked up first; then it is
    // claimed in the sandbox it was taken of (provider/kinds/snapshot/claim.ts).
    expect(callsSince(emu(), since)).toEqual(["GET /snapshots", `POST /sandboxes/${box.id}/snapshots`, `GET /sandboxes/${box.id}`, "POST /filesystem.Filesystem/MakeDir"]);
    expect(made.id).toMatch(/^[a-z0-9-]+\/snap-[0-9a-f]{8}-[0-9a-f]{8}:default$/);
    expect(made.outs).toMatchObject({ sandboxID: box.id, snapshotID: made.id, names: [made.id.replace(/:default$/, "")] });
    expect(await listed()).toEqual([made.id]);

    const child = await runtime.create("Sandbox", await checked("Sandbox", {
      templateID: made.id, provision: { commands: [{ command: "cat ~/marker" }] }, __resource: "proj/dev/child",
    }));
    expect(child.outs.provisionResults).toMatchObject([{ exitCode: 0, stdoutTail: "from-the-original\n" }]);
    // The service refuses to delete a snapshot sandboxes run from; the engine deletes those first.
    const refused = await rejection(runtime.remove("Snapshot", made.id, made.outs));
    expect(refused.message).toContain(`cannot delete template '${made.id}' because there are running sandboxes using it`);
    await runtime.remove("Sandbox", child.id, child.outs);
  });

  test("read finds it; an unchanged program diffs as no change", async () => {
    expect(await runtime.read("Snapshot", made.id, made.outs)).toEqual({ id: made.id, props: made.outs });
    expect(await runtime.diff("Snapshot", made.id, made.outs, inputs)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  });

  test("a change of triggers replaces it, the new one made first; a kept chosen name deletes first", async () => {
    expect(await runtime.diff("Snapshot", made.id, made.outs, { ...inputs, triggers: { files: "v2" } }))
      .toEqual({ changes: true, replaces: ["triggers"], deleteBeforeReplace: false });
    const named = { ...made.outs, name: "prebuilt" };
    expect(await runtime.diff("Snapshot", made.id, named, { ...inputs, name: "prebuilt", triggers: { files: "v2" } }))
      .toEqual({ changes: true, replaces: ["triggers"], deleteBeforeReplace: true });
  });

  test("read by its ID alone (import) gives no sandboxID; the program's then stands, and diffs as no change", async () => {
    const imported = await runtime.read("Snapshot", made.id, {});
    expect(imported.id).toBe(made.id);
    expect(imported.props).toMatchObject({ snapshotID: made.id, names: made.outs.names });
    expect(imported.props).not.toHaveProperty("sandboxID");
    const olds = withKnownInputs("Snapshot", imported.props!, undefined, inputs);
    expect(await runtime.diff("Snapshot", made.id, olds, inputs)).toMatchObject({ changes: false });
  });

  test("deleted elsewhere, it reads as gone; deleting it again is done", async () => {
    expect((await rest(emu(), "DELETE", `/templates/${encodeURIComponent(made.id)}`)).status).toBe(204);
    expect(await runtime.read("Snapshot", made.id, made.outs)).toEqual({});
    await runtime.remove("Snapshot", made.id, made.outs);
    expect(await listed()).toEqual([]);
  });
});

describe("a named snapshot", () => {
  test("its ID is the team's name for it; delete leaves no snapshot", async () => {
    const box = await sandboxWithFile("named", "proj/dev/origin2");
    const made = await runtime.create("Snapshot", await checked("Snapshot", { sandboxID: box.id, name: "prebuilt" }));
    expect(made.id).toMatch(/^[a-z0-9-]+\/prebuilt:default$/);
    expect(made.outs.names).toEqual([made.id.replace(/:default$/, "")]);
    expect((await runtime.read("Snapshot", made.id, made.outs)).id).toBe(made.id);
    await runtime.remove("Snapshot", made.id, made.outs);
    expect(await listed()).toEqual([]);
  });
});
