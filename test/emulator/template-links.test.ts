/**
 * A template build's COPY archive cannot reach the host: its entries are placed in a sandbox's own
 * root when the sandbox starts, and an entry written through a link the archive made (pointing at a
 * host dir, absolutely or by climbing), an entry climbing out with `..`, or a copied dir over one of
 * the sandbox root's own links (`/bin` → `usr/bin`) leave the host's files as they were. An archive
 * that inflates past its bound fails the build instead of filling memory. Driven over the platform
 * API as the SDKs drive it (v3 request, upload URL, v2 start), with archives made here.
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_ARCHIVE_BYTES, readTar } from "../../emulator/store/tar-read";
import { tarEntry } from "../../sdk/template-build/context-tar";
import { climbing, hostBait, type HostBait } from "./host-bait";
import { buildFinished, useEmulator } from "./platform-helpers";

const env = useEmulator();
let bait: HostBait;
let hostDir = "";
let hostFile = "";
const hostState = () => bait.state();
let before: ReturnType<typeof hostState>;

beforeAll(() => {
  bait = hostBait("template-links-host-");
  ({ dir: hostDir, file: hostFile } = bait);
  before = hostState();
});
afterAll(() => bait?.remove());

type Entry = Parameters<typeof tarEntry>[0];
const file = (path: string, data = "x", mode = 0o644): Entry => ({ path, type: "0", mode, mtime: 0, data: Buffer.from(data) });
const link = (path: string, linkname: string): Entry => ({ path, type: "2", mode: 0o777, mtime: 0, linkname });
const dir = (path: string): Entry => ({ path: `${path}/`, type: "5", mode: 0o755, mtime: 0 });
const archive = (entries: Entry[]) => gzipSync(Buffer.concat([...entries.flatMap((e) => tarEntry(e)), Buffer.alloc(1024)]));

/** Builds a template with one COPY of `entries` (args as the service takes them) and returns its final status and ID. */
async function buildWith(name: string, entries: Entry[], args: string[]): Promise<{ templateID: string; info: { status: string; reason?: { message: string } } }> {
  const { c } = env;
  const requested = await c.post("/v3/templates", { name });
  const { templateID, buildID } = requested.body;
  const tar = archive(entries);
  const hash = createHash("sha256").update(tar).digest("hex");
  const { url } = (await c.get(`/templates/${templateID}/files/${hash}`)).body as { url: string };
  expect((await fetch(url, { method: "PUT", body: tar, headers: { "content-length": String(tar.length) } })).status).toBe(200);
  const started = await c.post(`/v2/templates/${templateID}/builds/${buildID}`, { fromImage: "e2bdev/base", steps: [{ type: "COPY", args, filesHash: hash }] });
  expect(started.status).toBe(202);
  return { templateID, info: await buildFinished(c, templateID, buildID) };
}

describe("COPY entries and the host", () => {
  it("an entry written through a link the archive made to a host dir lands nowhere on the host", async () => {
    const entries = [link("out", hostDir), file("out/pwned", "pwned"), link("rel", climbing(hostDir)), file("rel/pwned2", "pwned"), link("f", hostFile), file("ok.txt", "ok")];
    const { templateID, info } = await buildWith("links-out", entries, [".", "/app", "", "777"]);
    expect(info.status).toBe("ready");
    const sandbox = await env.c.post("/sandboxes", { templateID });
    expect(sandbox.status).toBe(201);
    expect(hostState()).toEqual(before);
    const rootDir = env.emu.state.sandboxes().find((s) => s.sandboxID === sandbox.body.sandboxID)!.rootDir;
    expect(readFileSync(join(rootDir, "app", "ok.txt"), "utf8")).toBe("ok");
  });

  it("an entry climbing out of the copied files with `..` fails the build, naming it", async () => {
    const entry = `../../../../../..${hostDir}/climbed`;
    const { info } = await buildWith("links-climb", [file(entry, "pwned")], [".", "/app", "", ""]);
    expect(info.status).toBe("error");
    expect(info.reason?.message).toBe(`files of COPY . /app could not be read: archive entry '${entry}' is outside the copied files`);
    expect(hostState()).toEqual(before);
  });

  it("a dir copied over a link of the sandbox's root (/bin → usr/bin) is not written through it", async () => {
    const usrBin = statSync("/usr/bin").mode;
    const { templateID, info } = await buildWith("links-bin", [dir("tools"), file("tools/tool", "#!/bin/sh\n", 0o755)], ["tools", "/bin", "", "777"]);
    expect(info.status).toBe("ready");
    const sandbox = await env.c.post("/sandboxes", { templateID });
    expect(sandbox.status).toBe(201);
    expect(statSync("/usr/bin").mode).toBe(usrBin);
  });
});

describe("an archive's bound", () => {
  it("an archive inflating past the bound is refused with a message, not inflated whole", () => {
    const bomb = gzipSync(Buffer.alloc(4 * 1024 * 1024));
    expect(() => readTar(bomb, 1024 * 1024)).toThrow("the archive inflates to more than 1048576 bytes, the emulator's bound");
    expect(MAX_ARCHIVE_BYTES).toBe(256 * 1024 * 1024);
  });
});
