/**
 * Volume `content`: the provider's methods called directly against the emulator. What each change
 * sends, what a refresh finds, and what a seed stopped part way records.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { checked, emulatorForFile, expectPlainJSON, lastSeq, rejection, runtime } from "./harness";

const emu = emulatorForFile();
const seed = mkdtempSync(join(tmpdir(), "volume-content-"));
afterAll(() => rmSync(seed, { recursive: true, force: true }));

const put = (rel: string, text: string, mode = 0o644) => {
  mkdirSync(join(seed, rel, ".."), { recursive: true });
  writeFileSync(join(seed, rel), text);
  chmodSync(join(seed, rel), mode);
};
const hostDir = (id: string) => emu().state.volumes().find((v) => v.volumeID === id)!.hostDir;
/** Content-API reads since `seq`, by route: `path /a.txt` (a stat), `file /a.txt` (a download). */
const reads = (seq: number) =>
  emu().calls(seq)
    .filter((c) => c.path.startsWith("/volumecontent/") && c.method === "GET")
    .map((c) => `${c.path.split("?")[0]!.split("/").pop()} ${new URL(c.path, "http://x").searchParams.get("path")}`);
/** Content-API writes since `seq`: `PUT /a.txt`, `PATCH /b.txt`, ... */
const writes = (seq: number) =>
  emu().calls(seq)
    .filter((c) => c.path.startsWith("/volumecontent/") && c.method !== "GET")
    .map((c) => `${c.method} ${new URL(c.path, "http://x").searchParams.get("path")}`);

describe("seeding", () => {
  let inputs: Record<string, unknown>;
  let outs: Record<string, unknown>;
  let id: string;
  const key = "proj/dev/seeded";

  test("create makes the volume, then uploads each file under the target with its mode", async () => {
    put("a.txt", "a");
    put("deep/er/b.sh", "#!/bin/sh\n", 0o755);
    inputs = await checked("Volume", { content: { path: seed, target: "/srv" }, __resource: key });
    const since = lastSeq(emu());
    ({ id, outs } = await runtime.create("Volume", inputs));
    // Between the volume's pending mark and its removal (provider/kinds/volume/claim.ts): a finished create leaves none.
    expect(writes(since)).toEqual(["PUT /.pulumi-sandbox-pending", "POST /srv/deep/er", "PUT /srv/a.txt", "PUT /srv/deep/er/b.sh", "DELETE /.pulumi-sandbox-pending"]);
    expect(readFileSync(join(hostDir(id), "srv/deep/er/b.sh"), "utf8")).toBe("#!/bin/sh\n");
    expect(outs.content).toEqual(inputs.content);
    expect(Object.keys(outs.contentWritten as object)).toEqual(["/srv/a.txt", "/srv/deep/er/b.sh"]);
    expect(outs.contentDrift).toEqual({});
    expectPlainJSON(outs);
    expect(await runtime.diff("Volume", id, outs, inputs)).toMatchObject({ changes: false });
  });

  test("a mode-only change is an in-place update of one PATCH", async () => {
    chmodSync(join(seed, "a.txt"), 0o600);
    const news = await checked("Volume", { content: { path: seed, target: "/srv" }, __resource: key }, outs);
    expect(await runtime.diff("Volume", id, outs, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const since = lastSeq(emu());
    ({ outs } = await runtime.update("Volume", id, outs, news));
    expect(writes(since)).toEqual(["PATCH /srv/a.txt"]);
    expect((outs.content as { files: Record<string, { mode: number }> }).files["/srv/a.txt"]!.mode).toBe(0o600);
    inputs = news;
  });

  test("refresh: a seeded file changed or removed on the volume is contentDrift; a file nobody seeded is not looked at", async () => {
    writeFileSync(join(hostDir(id), "srv/a.txt"), "changed by a sandbox");
    unlinkSync(join(hostDir(id), "srv/deep/er/b.sh"));
    writeFileSync(join(hostDir(id), "srv/other.txt"), "a sandbox's own");
    const { props } = await runtime.read("Volume", id, outs);
    expect(props!.contentDrift).toEqual({ "/srv/a.txt": "changed", "/srv/deep/er/b.sh": "removed" });
    // Drift is reported, not reverted: the inputs still match, so up sends nothing.
    expect(await runtime.diff("Volume", id, props!, inputs)).toMatchObject({ changes: false });
    outs = props!;
  });

  test("a seed stopped part way records what it wrote; the next update continues from there", async () => {
    put("c.txt", "c");
    put("z.txt", "z");
    writeFileSync(join(hostDir(id), "srv/c.txt"), "a sandbox wrote this first");
    const news = await checked("Volume", { content: { path: seed, target: "/srv" }, __resource: key }, outs);
    const before = lastSeq(emu());
    const err = await rejection(runtime.update("Volume", id, outs, news));
    expect(err.message).toContain("content: /srv/c.txt already exists on the volume and was not written by this Volume's seed, so it is left alone.");
    // Its size differs from the seed's file: the stat decides, and nothing of it is downloaded. (First,
    // every update looks for the claim file earlier versions left, provider/kinds/volume/claim.ts.)
    expect(reads(before)).toEqual(["file /.pulumi-sandbox-claim", "path /srv/c.txt"]);
    expect(err.id).toBe(id);
    const recorded = err.properties!;
    expect(Object.keys((recorded.content as { files: object }).files)).toEqual(["/srv/a.txt", "/srv/deep/er/b.sh"]);
    expect(readFileSync(join(hostDir(id), "srv/c.txt"), "utf8")).toBe("a sandbox wrote this first");
    rmSync(join(hostDir(id), "srv/c.txt"));
    const since = lastSeq(emu());
    ({ outs } = await runtime.update("Volume", id, recorded, news));
    expect(writes(since)).toEqual(["POST /srv", "PUT /srv/c.txt", "PUT /srv/z.txt"]); // a mkdir -p of the parent, then only the two new files
    expect(outs.contentDrift).toEqual({ "/srv/a.txt": "changed", "/srv/deep/er/b.sh": "removed" });
  });

  test("a new seed file the volume already holds byte for byte (an upload whose answer was lost) is recorded as seeded, not written", async () => {
    put("d.txt", "d", 0o600);
    writeFileSync(join(hostDir(id), "srv/d.txt"), "d");
    chmodSync(join(hostDir(id), "srv/d.txt"), 0o644);
    const news = await checked("Volume", { content: { path: seed, target: "/srv" }, __resource: key }, outs);
    const since = lastSeq(emu());
    ({ outs } = await runtime.update("Volume", id, outs, news));
    expect(writes(since)).toEqual(["POST /srv", "PUT /srv/d.txt", "PATCH /srv/d.txt"]); // mkdir -p, the refused upload (409), then the mode
    expect(emu().calls(since).find((c) => c.method === "PUT")?.status).toBe(409);
    expect((outs.content as { files: Record<string, { mode: number }> }).files["/srv/d.txt"]).toMatchObject({ mode: 0o600, size: 1 });
    expect(Object.keys(outs.contentWritten as object)).toContain("/srv/d.txt");
    expect(await runtime.diff("Volume", id, outs, news)).toMatchObject({ changes: false });
  });

  test("a new seed file over one of the same size but other bytes is refused, after a compare of its bytes", async () => {
    put("e.txt", "seed's");
    writeFileSync(join(hostDir(id), "srv/e.txt"), "theirs");
    const news = await checked("Volume", { content: { path: seed, target: "/srv" }, __resource: key }, outs);
    const since = lastSeq(emu());
    const err = await rejection(runtime.update("Volume", id, outs, news));
    expect(err.message).toContain("content: /srv/e.txt already exists on the volume and was not written by this Volume's seed, so it is left alone.");
    expect(reads(since)).toEqual(["file /.pulumi-sandbox-claim", "path /srv/e.txt", "file /srv/e.txt"]);
    expect(readFileSync(join(hostDir(id), "srv/e.txt"), "utf8")).toBe("theirs");
    rmSync(join(seed, "e.txt"));
    rmSync(join(hostDir(id), "srv/e.txt"));
  });

  test("dropping content deletes the seeded files and nothing else", async () => {
    const news = await checked("Volume", { __resource: key }, outs);
    const since = lastSeq(emu());
    ({ outs } = await runtime.update("Volume", id, outs, news));
    expect(writes(since)).toEqual(["DELETE /srv/a.txt", "DELETE /srv/c.txt", "DELETE /srv/d.txt", "DELETE /srv/deep/er/b.sh", "DELETE /srv/z.txt"]);
    expect(existsSync(join(hostDir(id), "srv/other.txt"))).toBe(true);
    expect(outs.content).toBeUndefined();
    expect(outs.contentWritten).toEqual({});
    expect(outs.contentDrift).toEqual({});
  });
});
