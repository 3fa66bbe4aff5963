/**
 * A Volume seeded from a local directory, through the real engine against the emulator: bad values fail
 * at preview with no call; `up` seeds and a sandbox mounting the volume sees the files; a second `up`
 * changes nothing; an edited file is named by the preview and is the one upload of the next `up` (same
 * volumeID); what a sandbox wrote survives every seed change, and a seed file never overwrites it;
 * refresh reports a seeded file a sandbox changed as `contentDrift` and `up` leaves it alone until the
 * seed's own copy changes; a file removed from the seed is deleted from the volume; the same files
 * given as a Pulumi AssetArchive are the same seed; a new volume is empty to a sandbox that mounts it
 * and to the content API (nothing of the provider's bookkeeping is left in it).
 * Tests in this file run in order on one stack.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ProcessClient } from "../../sdk/in-sandbox/process";
import { PlatformClient } from "../../sdk/platform/client";
import { callsSince, inventoryOfStack, lastSeq, startStack, type E2eStack } from "./harness";

const FIXTURE = join(__dirname, "fixtures", "volume-content");
let s: E2eStack;
let seed: string;
let volumeID: string;
let reader: ProcessClient;

const hostFile = (path: string) => join(inventoryOfStack(s.emulator).volumes[0]!.hostDir, path);
const writeSeed = (rel: string, text: string) => {
  mkdirSync(join(seed, rel, ".."), { recursive: true });
  writeFileSync(join(seed, rel), text);
};
/** The content-API writes since `seq`, with their `path` query: `PUT /a.txt`, `DELETE /c.txt`. */
const contentWrites = (seq: number) =>
  s.emulator.calls(seq)
    .filter((c) => c.path.startsWith("/volumecontent/") && c.method !== "GET")
    .map((c) => `${c.method} ${new URL(c.path, "http://x").searchParams.get("path")}`);
/** Runs a shell command in a sandbox that mounts the volume at /mnt/data. */
const inSandbox = async (command: string) => (await reader.run(command)).stdoutTail;

beforeAll(async () => {
  s = await startStack(FIXTURE, "e2e-volume-content");
  seed = mkdtempSync(join(tmpdir(), "volume-seed-"));
  writeSeed("a.txt", "alpha\n");
  writeSeed("conf/b.toml", "b = 1\n");
  writeSeed("c.txt", "gamma\n");
}, 120_000);

afterAll(async () => {
  await s?.close();
  rmSync(seed, { recursive: true, force: true });
});

describe("volume content", () => {
  test("bad values fail at preview naming the field, before any call", async () => {
    await s.ok("config", "set", "seedDir", "/nonexistent/seed");
    const missing = await s.pulumi("preview");
    expect(missing.code).not.toBe(0);
    expect(missing.output).toContain('content.path: directory "/nonexistent/seed" not found (resolved to /nonexistent/seed)');
    await s.ok("config", "set", "seedDir", seed);
    await s.ok("config", "set", "target", "/data/../../etc");
    const escaping = await s.pulumi("preview");
    expect(escaping.code).not.toBe(0);
    expect(escaping.output).toContain(`content.target: must be a clean path inside the volume, without '.', '..' or empty parts (got "/data/../../etc")`);
    expect(s.emulator.calls()).toEqual([]);
    await s.ok("config", "rm", "target");
  });

  test("up seeds the volume: one upload per file, logged with its size; a sandbox mounting it sees the files", async () => {
    const since = lastSeq(s.emulator);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toContain("seeding: 3 file(s) to upload (18 bytes), 0 to delete, 0 mode change(s)");
    expect(up.output).toContain("uploaded /conf/b.toml (6 bytes)");
    expect(up.output).not.toContain("alpha"); // contents are never logged
    // The seed's files, between the volume's pending mark and its removal (provider/kinds/volume/claim.ts).
    const writes = contentWrites(since);
    expect([writes[0], writes.at(-1)]).toEqual(["PUT /.pulumi-sandbox-pending", "DELETE /.pulumi-sandbox-pending"]);
    expect(writes.slice(1, -1).sort()).toEqual(["POST /conf", "PUT /a.txt", "PUT /c.txt", "PUT /conf/b.toml"]);
    ({ volumeID } = (await s.outputs()) as { volumeID: string });
    const volume = inventoryOfStack(s.emulator).volumes[0]!;
    expect(volume.volumeID).toBe(volumeID);
    const res = await fetch(`${s.emulator.apiUrl}/sandboxes`, {
      method: "POST",
      headers: { "X-API-Key": s.emulator.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ templateID: "base", timeout: 600, volumeMounts: [{ name: volume.name, path: "/mnt/data" }] }),
    });
    expect(res.status).toBe(201);
    const { sandboxID } = (await res.json()) as { sandboxID: string };
    reader = new ProcessClient({ sandboxID, envdAccessToken: null, options: { sandboxUrl: s.emulator.sandboxUrl } });
    expect(await inSandbox("cat /mnt/data/a.txt /mnt/data/conf/b.toml")).toBe("alpha\nb = 1\n");
    // The sandbox writes its own files, beside and among the seeded ones.
    await inSandbox("echo mine > /mnt/data/notes.txt && echo local > /mnt/data/conf/local.txt");
  });

  test("a second up changes nothing and sends no content call", async () => {
    const since = lastSeq(s.emulator);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/2 unchanged/); // the stack and the volume
    expect(callsSince(s.emulator, since)).toEqual([]);
  });

  test("an edited file: preview --diff names it alone; up uploads only it, in place; the sandbox's files survive", async () => {
    writeSeed("c.txt", "gamma, edited\n");
    const preview = await s.ok("preview", "--diff");
    expect(preview.output).toMatch(/~ .*Volume: \(update\)/);
    // The manifest is shown whole; only the edited file carries a change marker.
    expect(preview.output).toMatch(/~ \/c\.txt\s*: \{/);
    expect(preview.output).toMatch(/~ size\s*: 6 => 14/);
    expect(preview.output).not.toMatch(/[~+-] \/(a\.txt|conf\/b\.toml)/);
    const since = lastSeq(s.emulator);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/1 updated/);
    expect(contentWrites(since)).toEqual(["PUT /c.txt"]);
    expect((await s.outputs()).volumeID).toBe(volumeID);
    expect(await inSandbox("cat /mnt/data/c.txt /mnt/data/notes.txt /mnt/data/conf/local.txt")).toBe("gamma, edited\nmine\nlocal\n");
  });

  test("a seed file at a path a sandbox wrote is refused by name, and the sandbox's file is kept", async () => {
    writeSeed("notes.txt", "from the seed\n");
    const up = await s.pulumi("up", "--yes", "--skip-preview");
    expect(up.code).not.toBe(0);
    expect(up.output).toContain("content: /notes.txt already exists on the volume and was not written by this Volume's seed, so it is left alone.");
    expect(readFileSync(hostFile("notes.txt"), "utf8")).toBe("mine\n");
    rmSync(join(seed, "notes.txt"));
    const again = await s.ok("up", "--yes", "--skip-preview");
    expect(again.output).not.toMatch(/failed/);
  });

  test("refresh reports a seeded file a sandbox changed as contentDrift; up leaves it until the seed's copy changes", async () => {
    await inSandbox("echo changed-in-sandbox > /mnt/data/a.txt");
    await s.ok("refresh", "--yes", "--skip-preview");
    const state = JSON.parse(await s.exported()) as { deployment: { resources: { type: string; outputs: Record<string, unknown> }[] } };
    const volume = state.deployment.resources.find((r) => r.type.endsWith(":Volume"))!;
    expect(volume.outputs.contentDrift).toEqual({ "/a.txt": "changed" });
    const preview = await s.pulumi("preview", "--expect-no-changes");
    expect(preview.code, preview.output).toBe(0);
    expect(readFileSync(hostFile("a.txt"), "utf8")).toBe("changed-in-sandbox\n");
    writeSeed("a.txt", "alpha, second edition\n");
    const since = lastSeq(s.emulator);
    await s.ok("up", "--yes", "--skip-preview");
    expect(contentWrites(since)).toEqual(["PUT /a.txt"]);
    expect(readFileSync(hostFile("a.txt"), "utf8")).toBe("alpha, second edition\n");
  });

  test("a file removed from the seed is deleted from the volume; nothing else is", async () => {
    rmSync(join(seed, "c.txt"));
    const since = lastSeq(s.emulator);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toContain("deleted /c.txt");
    expect(contentWrites(since)).toEqual(["DELETE /c.txt"]);
    expect(existsSync(hostFile("c.txt"))).toBe(false);
    expect(await inSandbox("ls -A /mnt/data /mnt/data/conf")).toBe("/mnt/data:\na.txt\nconf\nnotes.txt\n\n/mnt/data/conf:\nb.toml\nlocal.txt\n");
    expect((await s.outputs()).volumeID).toBe(volumeID);
  });

  test("the same files from a Pulumi AssetArchive: only the StringAsset's new file is uploaded; a second up changes nothing", async () => {
    await s.ok("config", "set", "archive", "true");
    const preview = await s.ok("preview", "--diff");
    expect(preview.output).toMatch(/\+ \/motd\.txt\s*: \{/);
    expect(preview.output).not.toMatch(/[~+-] \/(a\.txt|conf\/b\.toml)/);
    const since = lastSeq(s.emulator);
    await s.ok("up", "--yes", "--skip-preview");
    expect(contentWrites(since)).toEqual(["PUT /motd.txt"]);
    expect(await inSandbox("cat /mnt/data/motd.txt")).toBe("hello from an asset\n");
    const again = await s.pulumi("preview", "--expect-no-changes");
    expect(again.code, again.output).toBe(0);
    expect((await s.outputs()).volumeID).toBe(volumeID);
  });

  test("a new volume is empty: to a sandbox mounting it at /home/user/data, and to the content API", async () => {
    await s.ok("config", "set", "mounted", "true");
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/\+ 2 created/);
    const out = (await s.outputs({ showSecrets: true })) as { pgdataID: string; pgdataListing: string };
    expect(out.pgdataListing).toBe(""); // `ls -A /home/user/data` printed nothing (provisioning output is secret in state)
    const sdk = new PlatformClient({ apiKey: s.emulator.apiKey, apiUrl: s.emulator.apiUrl });
    const files = sdk.volumes.content(await sdk.volumes.get(out.pgdataID));
    try {
      expect(await files.list("/")).toEqual([]);
    } finally {
      await files.close();
      await sdk.close();
    }
  });
});
