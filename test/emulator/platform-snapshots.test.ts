/**
 * Snapshots and fork on the wire (docs/service.md#sandbox-snapshots, docs/service.md#sandbox-fork):
 * status codes and messages of the service's handlers, name rules, listing filters, delete through
 * the template route, what a snapshot leaves out (volumes), and that a snapshot is no template.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import type { Emulator } from "../../emulator";
import { client, createSandbox, sandboxNotFound, startEmulator, useEmulator, type TestEmulator } from "./platform-helpers";

const t = useEmulator();

/** An emulator whose sandboxes are not isolated (SANDBOX_EMULATOR_ISOLATION=none), for the file's lifetime. */
function useEmulatorWithout(): TestEmulator {
  const handle = {} as TestEmulator;
  beforeAll(async () => {
    vi.stubEnv("SANDBOX_EMULATOR_ISOLATION", "none");
    try {
      handle.emu = await startEmulator();
    } finally {
      vi.unstubAllEnvs();
    }
    handle.c = client(handle.emu);
  });
  afterAll(() => handle.emu?.close());
  return handle;
}

/** Writes `content` at `path` in the sandbox, through envd's plain HTTP file API. */
async function writeFile(emu: Emulator, sandboxID: string, path: string, content: string): Promise<void> {
  const form = new FormData();
  form.append("file", new Blob([content]), path);
  const res = await fetch(`${emu.sandboxUrl}/files?path=${encodeURIComponent(path)}&username=user`, { method: "POST", headers: { "e2b-sandbox-id": sandboxID }, body: form });
  if (res.status !== 200) throw new Error(`write answered ${res.status}: ${await res.text()}`);
}

async function readFile(emu: Emulator, sandboxID: string, path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${emu.sandboxUrl}/files?path=${encodeURIComponent(path)}&username=user`, { headers: { "e2b-sandbox-id": sandboxID } });
  return { status: res.status, text: await res.text() };
}

describe("POST /sandboxes/{id}/snapshots", () => {
  test("201 with the snapshot's ID and names; a snapshot is not a template", async () => {
    const id = await createSandbox(t.c, { timeout: 60 });
    const res = await t.c.post(`/sandboxes/${id}/snapshots`, {});
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ snapshotID: expect.stringMatching(/^[a-z0-9]{20}:default$/), names: [] });
    const templates = await t.c.get("/templates");
    expect(templates.body.map((x: { templateID: string }) => x.templateID)).not.toContain(res.body.snapshotID.split(":")[0]);
    const named = await t.c.post(`/sandboxes/${id}-clientid/snapshots`, { name: "  Emulator/Web-App:V1.2 " });
    expect([named.status, named.body]).toEqual([201, { snapshotID: "emulator/web-app:v1.2", names: ["emulator/web-app"] }]);
  });

  test.each([
    [{ name: "has space" }, "Invalid name: invalid template ID: has space"],
    [{ name: "ok:bad tag" }, "Invalid name: invalid tag: bad tag"],
    [{ name: "b@d/ok" }, "Invalid name: invalid namespace: b@d"],
    [{ name: "other-team/ok" }, "namespace 'other-team' must match your team 'emulator'"],
    [{ name: "base" }, "Invalid name: 'base' is the name of a template, not of a snapshot"],
    [undefined, "validation error: request body has an error: value is required but missing"],
  ])("400 for %j", async (body, message) => {
    const id = await createSandbox(t.c, { timeout: 60 });
    expect(await t.c.post(`/sandboxes/${id}/snapshots`, body)).toMatchObject({ status: 400, body: { code: 400, message } });
  });

  test("404 for a sandbox that is paused or gone, 400 for a malformed ID", async () => {
    const id = await createSandbox(t.c, { timeout: 60 });
    expect((await t.c.post(`/sandboxes/${id}/pause`)).status).toBe(204);
    expect(await t.c.post(`/sandboxes/${id}/snapshots`, {})).toMatchObject({ status: 404, body: { message: sandboxNotFound(id) } });
    expect(await t.c.post("/sandboxes/inosuchsandbox/snapshots", {})).toMatchObject({ status: 404, body: { message: sandboxNotFound("inosuchsandbox") } });
    expect(await t.c.post("/sandboxes/BAD!/snapshots", {})).toMatchObject({ status: 400, body: { message: "Invalid sandbox ID" } });
  });

});

describe.each(["namespaces", "none"] as const)("a snapshot with a volume mounted (isolation %s)", (mode) => {
  // Without namespaces a mount is a link in the sandbox's root dir: the copy must leave it out, not copy the link.
  const emu = mode === "none" ? useEmulatorWithout() : t;
  test("keeps the sandbox's files but not its volume's, and the new sandbox mounts what it asks for", async () => {
    const { c } = emu;
    expect(emu.emu.isolation.mode).toBe(mode);
    expect((await c.post("/volumes", { name: "snap-vol" })).status).toBe(201);
    const id = await createSandbox(c, { timeout: 60, volumeMounts: [{ name: "snap-vol", path: "/home/user/data" }] });
    await writeFile(emu.emu, id, "/home/user/mine.txt", "sandbox file");
    await writeFile(emu.emu, id, "/home/user/data/on-volume.txt", "volume file");
    const snap = await c.post(`/sandboxes/${id}/snapshots`, { name: "with-volume" });
    const bare = await createSandbox(c, { templateID: snap.body.snapshotID, timeout: 60 });
    expect(await readFile(emu.emu, bare, "/home/user/mine.txt")).toEqual({ status: 200, text: "sandbox file" });
    expect((await readFile(emu.emu, bare, "/home/user/data/on-volume.txt")).status).toBe(404);
    await writeFile(emu.emu, bare, "/home/user/data/own.txt", "not on the volume");
    const mounted = await createSandbox(c, { templateID: "with-volume", timeout: 60, volumeMounts: [{ name: "snap-vol", path: "/home/user/data" }] });
    expect(await readFile(emu.emu, mounted, "/home/user/data/on-volume.txt")).toEqual({ status: 200, text: "volume file" });
    expect((await readFile(emu.emu, mounted, "/home/user/data/own.txt")).status).toBe(404);
    // Reported with the snapshot's own template ID, not the one of the sandbox it was taken of.
    const [parent, child] = [(await c.get(`/sandboxes/${id}`)).body, (await c.get(`/sandboxes/${mounted}`)).body];
    expect(child).toMatchObject({ templateID: expect.stringMatching(/^[a-z0-9]{20}$/), alias: "with-volume" });
    expect(child.templateID).not.toBe(parent.templateID);
  });
});

describe("starting from and deleting a snapshot", () => {
  test("an unknown tag is a 404; deleting while a sandbox from it runs is a 400, then 204, then 404", async () => {
    const id = await createSandbox(t.c, { timeout: 60 });
    const { snapshotID } = (await t.c.post(`/sandboxes/${id}/snapshots`, { name: "to-delete" })).body;
    expect(await t.c.post("/sandboxes", { templateID: "to-delete:v9" })).toMatchObject({ status: 404, body: { message: "tag 'v9' does not exist for template 'to-delete'" } });
    const child = await createSandbox(t.c, { templateID: snapshotID, timeout: 60 });
    const busy = await t.c.del(`/templates/${encodeURIComponent(snapshotID)}`);
    expect(busy).toMatchObject({ status: 400, body: { message: `cannot delete template '${snapshotID}' because there are running sandboxes using it` } });
    expect((await t.c.del(`/sandboxes/${child}`)).status).toBe(204);
    expect((await t.c.del(`/templates/${encodeURIComponent(snapshotID)}`)).status).toBe(204);
    expect((await t.c.del(`/templates/${encodeURIComponent(snapshotID)}`)).status).toBe(404);
    expect(await t.c.post("/sandboxes", { templateID: snapshotID })).toMatchObject({ status: 404, body: { message: "template 'emulator/to-delete' not found" } });
  });
});

describe("GET /snapshots", () => {
  test("filters by sandbox and by name (a bare name any tag, name:tag that tag), and pages", async () => {
    const a = await createSandbox(t.c, { timeout: 60 });
    await t.c.post(`/sandboxes/${a}/snapshots`, { name: "listed:v1" });
    const v2 = (await t.c.post(`/sandboxes/${a}/snapshots`, { name: "listed:v2" })).body;
    expect((await t.c.get("/snapshots?name=listed")).body).toEqual([v2]);
    expect((await t.c.get("/snapshots?name=emulator/listed:v1")).body).toEqual([{ snapshotID: "emulator/listed:v1", names: ["emulator/listed"] }]);
    expect((await t.c.get("/snapshots?name=listed:default")).body).toEqual([]);
    expect((await t.c.get(`/snapshots?sandboxID=${a}`)).body).toEqual([v2]);
    const all = (await t.c.get("/snapshots")).body;
    const first = await t.c.get("/snapshots?limit=1");
    expect(first.body).toEqual([all[0]]);
    const second = await t.c.get(`/snapshots?limit=1&nextToken=${first.headers.get("x-next-token")}`);
    expect(second.body).toEqual([all[1]]);
  });

  test.each([
    ["sandboxID=BAD!", "Invalid sandbox ID"],
    ["name=x:bad%20tag", "Invalid name: invalid tag: bad tag"],
    ["name=elsewhere/x", "namespace 'elsewhere' must match your team 'emulator'"],
    ["nextToken=nonsense", "Invalid next token"],
    ["limit=0", 'validation error: parameter "limit" in query has an error: number must be at least 1'],
  ])("400 for %s", async (query, message) => {
    expect(await t.c.get(`/snapshots?${query}`)).toMatchObject({ status: 400, body: { code: 400, message } });
  });
});

describe("POST /sandboxes/{id}/fork", () => {
  test("201 with one Sandbox per fork, with the parent's files; no body means one fork of 15 s", async () => {
    const parent = await createSandbox(t.c, { timeout: 60, metadata: { who: "parent" } });
    await writeFile(t.emu, parent, "/home/user/state.txt", "forked state");
    const res = await t.c.post(`/sandboxes/${parent}/fork`);
    expect(res.status).toBe(201);
    expect(res.body).toEqual([{ sandbox: expect.objectContaining({ sandboxID: expect.stringMatching(/^i[a-z0-9]{20}$/), templateID: expect.any(String) }) }]);
    const fork = res.body[0].sandbox.sandboxID;
    expect(await readFile(t.emu, fork, "/home/user/state.txt")).toEqual({ status: 200, text: "forked state" });
    const info = (await t.c.get(`/sandboxes/${fork}`)).body;
    expect(info.metadata).toEqual({ who: "parent" });
    expect(Date.parse(info.endAt) - Date.parse(info.startedAt)).toBe(15_000);
    expect((await t.c.post(`/sandboxes/${parent}/fork`, { count: 3, timeout: 30 })).body).toHaveLength(3);
  });

  test("404 for a killed sandbox, 409 for a paused one, 400 for bad bounds or a malformed ID", async () => {
    const gone = await createSandbox(t.c, { timeout: 60 });
    expect((await t.c.del(`/sandboxes/${gone}`)).status).toBe(204);
    expect(await t.c.post(`/sandboxes/${gone}/fork`, {})).toMatchObject({ status: 404, body: { code: 404, message: sandboxNotFound(gone) } });
    const paused = await createSandbox(t.c, { timeout: 60 });
    await t.c.post(`/sandboxes/${paused}/pause`);
    expect(await t.c.post(`/sandboxes/${paused}/fork`, {})).toMatchObject({ status: 409, body: { message: `Sandbox '${paused}' is paused and cannot be forked; resume it first` } });
    expect(await t.c.post(`/sandboxes/${paused}/fork`, { timeout: -1 })).toMatchObject({ status: 400, body: { message: 'validation error: request body has an error: Error at "/timeout": number must be at least 0' } });
    expect(await t.c.post("/sandboxes/BAD!/fork", {})).toMatchObject({ status: 400, body: { message: "Invalid sandbox ID" } });
  });
});
