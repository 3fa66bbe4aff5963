/**
 * A Volume's mark (provider/kinds/volume/claim.ts, issue 47 item 1): the provider's bookkeeping never
 * shows in a volume a finished create made. The create marks the volume pending while it runs and
 * takes the mark away at its end; who holds a name is read from that mark. A run whose engine went
 * away keeps its mark, so the re-run adopts the volume; 0.3's claim file goes at the owner's update.
 */
import { describe, expect, test } from "vitest";
import { volumeClaims } from "../../provider/kinds/volume/claim";
import { ENGINE_GONE, runAsOperation } from "../../provider/runtime/operation";
import { capturedStderr, checked, emulatorForFile, lastSeq, rest, runtime, volumeLeftByKilledRun, withVolumeContent } from "./harness";

const emu = emulatorForFile();
const stderr = capturedStderr();
const PENDING = "/.pulumi-sandbox-pending";
const LEGACY = "/.pulumi-sandbox-claim";
const text = (s: string) => new TextEncoder().encode(s);

/** What the volume's root holds, as the content API lists it. */
const rootOf = (id: string) => withVolumeContent(emu(), id, async (files) => (await files.list("/")).map((e) => e.name).sort());
/** Content-API writes since `seq`: `PUT /a.txt`, `DELETE /b.txt`. */
const writes = (seq: number) =>
  emu().calls(seq)
    .filter((c) => c.path.startsWith("/volumecontent/") && c.method !== "GET")
    .map((c) => `${c.method} ${new URL(c.path, "http://x").searchParams.get("path")}`);
const keyOf = (name: string) => ({ __resource: `proj/dev/urn:pulumi:dev::proj::sandbox:Volume::${name}` });

test("a finished create leaves the volume empty: the mark is written first and removed last", async () => {
  const inputs = await checked("Volume", keyOf("fresh"));
  const since = lastSeq(emu());
  const made = await runtime.create("Volume", inputs);
  expect(await rootOf(made.id)).toEqual([]);
  expect(writes(since)).toEqual([`PUT ${PENDING}`, `DELETE ${PENDING}`]);
  // Made by a finished create: some resource's, never taken by a new resource under the name.
  expect(await volumeClaims.holder(String(inputs.name), "ffffffffffffffff")).toBe("claimed");
  await runtime.remove("Volume", made.id, made.outs);
});

describe("who holds a name, by what its volume holds", () => {
  test("no volume: free; no mark (a finished create's, one made outside the provider, or 0.3's claim file): claimed", async () => {
    expect(await volumeClaims.holder("nobody-has-this", "0000000000000001")).toBe("free");
    await rest(emu(), "POST", "/volumes", { name: "made-elsewhere" });
    expect(await volumeClaims.holder("made-elsewhere", "0000000000000001")).toBe("claimed");
    const { volumeID } = (await (await rest(emu(), "POST", "/volumes", { name: "made-by-0-3" })).json()) as { volumeID: string };
    await withVolumeContent(emu(), volumeID, (files) => files.upload(LEGACY, text("0000000000000004\n")));
    expect(await volumeClaims.holder("made-by-0-3", "0000000000000005")).toBe("claimed");
  });

  test("the pending mark: ours with our nonce, unclaimed (a killed run's) with another", async () => {
    await volumeLeftByKilledRun(emu(), "mid-create", "0000000000000002");
    expect(await volumeClaims.holder("mid-create", "0000000000000002")).toBe("ours");
    expect(await volumeClaims.holder("mid-create", "0000000000000003")).toBe("unclaimed");
  });

});

test("a create whose engine went away keeps its mark; the re-run adopts the volume and leaves it empty", async () => {
  const killed = await checked("Volume", keyOf("engine-gone"));
  const controller = new AbortController();
  const stop = emu().onRequest((line) => void (line.startsWith("POST /volumes ") && controller.abort(new Error(ENGINE_GONE))));
  const op = { signal: controller.signal, why: () => ENGINE_GONE, urn: "urn:x" };
  const left = await runAsOperation(op, () => runtime.create("Volume", killed)).finally(stop);
  expect(await rootOf(left.id)).toEqual([PENDING.slice(1)]);
  const rerun = await checked("Volume", keyOf("engine-gone"));
  expect(rerun.name).toBe(killed.name);
  stderr.clear();
  const made = await runtime.create("Volume", rerun);
  expect(made.id).toBe(left.id);
  expect(stderr.text()).toContain(`adopting volume ${left.id} (name ${String(rerun.name)}) made by an interrupted run`);
  expect(await rootOf(made.id)).toEqual([]);
  await runtime.remove("Volume", made.id, made.outs);
});

test("0.3's claim file goes at the update of the resource whose nonce it holds, and only then", async () => {
  const inputs = await checked("Volume", keyOf("upgraded"));
  const made = await runtime.create("Volume", inputs);
  const nonce = String(made.outs.__nonce);
  await withVolumeContent(emu(), made.id, (files) => files.upload(LEGACY, text(`${nonce}\n`)));
  // A refresh reads, and changes nothing: it also serves `pulumi preview --refresh`.
  await runtime.read("Volume", made.id, made.outs);
  expect(await rootOf(made.id)).toEqual([LEGACY.slice(1)]);
  const since = lastSeq(emu());
  await runtime.update("Volume", made.id, made.outs, await checked("Volume", keyOf("upgraded"), made.outs));
  expect(writes(since)).toEqual([`DELETE ${LEGACY}`]);
  expect(await rootOf(made.id)).toEqual([]);
  // Another resource's file (another nonce) is not this resource's to remove.
  await withVolumeContent(emu(), made.id, (files) => files.upload(LEGACY, text("0000000000000006\n")));
  await runtime.update("Volume", made.id, made.outs, await checked("Volume", keyOf("upgraded"), made.outs));
  expect(await rootOf(made.id)).toEqual([LEGACY.slice(1)]);
  await runtime.remove("Volume", made.id, made.outs);
});
