import { existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { SandboxStore } from "../../emulator/store/sandboxes";
import { useEmulator, waitFor } from "./platform-helpers";

const env = useEmulator();

const NAME_RULE = 'validation error: request body has an error: Error at "/name": string doesn\'t match the regular expression "^[a-zA-Z0-9_-]+$"';

function claims(token: string): Record<string, unknown> {
  const [, payload] = token.split(".");
  return JSON.parse(Buffer.from(payload!, "base64url").toString("utf8"));
}

describe("volume CRUD", () => {
  test("POST /volumes → 201 with a UUID, the name and a JWT; a host dir is made", async () => {
    const res = await env.c.post("/volumes", { name: "data_1-A" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ volumeID: expect.stringMatching(/^[0-9a-f-]{36}$/), name: "data_1-A", token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/) });
    expect(claims(res.body.token)).toMatchObject({ aud: env.emu.apiUrl, volid: res.body.volumeID, exp: expect.any(Number) });
    expect(existsSync(join(env.emu.dataDir, "volumes", res.body.volumeID))).toBe(true);
  });

  test.each([
    ["a space", { name: "bad name" }, NAME_RULE],
    ["a dot", { name: "a.b" }, NAME_RULE],
    ["no name", {}, 'validation error: request body has an error: Error at "/name": property "name" is missing'],
  ])("a name with %s → 400", async (_label, body, message) => {
    const res = await env.c.post("/volumes", body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message });
  });

  test("a duplicate name → 400 (not 409)", async () => {
    await env.c.post("/volumes", { name: "twice" });
    const res = await env.c.post("/volumes", { name: "twice" });
    expect(res.body).toEqual({ code: 400, message: "Volume with name 'twice' already exists" });
  });

  test("list, get (a fresh token each time), delete", async () => {
    const { volumeID } = (await env.c.post("/volumes", { name: "listed" })).body;
    expect((await env.c.get("/volumes")).body).toContainEqual({ volumeID, name: "listed" });
    const one = await env.c.get(`/volumes/${volumeID}`);
    const two = await env.c.get(`/volumes/${volumeID}`);
    expect(one.body).toMatchObject({ volumeID, name: "listed" });
    expect(one.body.token).not.toBe(two.body.token);
    expect((await env.c.del(`/volumes/${volumeID}`)).status).toBe(204);
    expect(existsSync(join(env.emu.dataDir, "volumes", volumeID))).toBe(false);
    expect((await env.c.get(`/volumes/${volumeID}`)).body).toEqual({ code: 404, message: "Volume not found" });
    expect((await env.c.del(`/volumes/${volumeID}`)).status).toBe(404);
    expect((await env.c.get("/volumes/not-a-uuid")).body).toEqual({ code: 400, message: "Invalid volume ID" });
    expect((await env.c.del("/volumes/not-a-uuid")).status).toBe(400);
  });
});

describe("volume mounts", () => {
  // Files go through envd's /files, so the same test holds with and without isolation; only the
  // host-side form of a mount point differs (a link, or a dir the volume is bound onto inside).
  const put = (sandboxID: string, path: string, text: string) =>
    fetch(`${env.emu.sandboxUrl}/files?path=${encodeURIComponent(path)}`, {
      method: "POST", headers: { "e2b-sandbox-id": sandboxID, "content-type": "application/octet-stream" }, body: text,
    }).then((r) => expect(r.status).toBe(200));
  const get = (sandboxID: string, path: string) =>
    fetch(`${env.emu.sandboxUrl}/files?path=${encodeURIComponent(path)}`, { headers: { "e2b-sandbox-id": sandboxID } }).then((r) => r.text());
  const isLink = (p: string) => lstatSync(p).isSymbolicLink();

  test("a mount shows the volume (a link, or a dir bound inside with isolation); content outlives the sandbox", async () => {
    const volume = (await env.c.post("/volumes", { name: "shared" })).body;
    const first = await env.c.post("/sandboxes", { templateID: "base", volumeMounts: [{ name: "shared", path: "/data" }] });
    expect(first.status).toBe(201);
    const detail = await env.c.get(`/sandboxes/${first.body.sandboxID}`);
    expect(detail.body.volumeMounts).toEqual([{ name: "shared", path: "/data" }]);
    const root = env.emu.state.sandboxes().find((s) => s.sandboxID === first.body.sandboxID)!.rootDir;
    const hostDir = join(env.emu.dataDir, "volumes", volume.volumeID);
    if (env.emu.isolation.mode === "none") expect(readlinkSync(join(root, "data"))).toBe(hostDir);
    else expect(isLink(join(root, "data"))).toBe(false);
    await put(first.body.sandboxID, "/data/kept.txt", "hello");
    expect(readFileSync(join(hostDir, "kept.txt"), "utf8")).toBe("hello");
    await env.c.del(`/sandboxes/${first.body.sandboxID}`);
    expect(readFileSync(join(hostDir, "kept.txt"), "utf8")).toBe("hello");
    const second = await env.c.post("/sandboxes", { templateID: "base", volumeMounts: [{ name: "shared", path: "/home/user/work" }] });
    expect(await get(second.body.sandboxID, "/home/user/work/kept.txt")).toBe("hello");
  });

  test("a volume at / is the sandbox's root (the service takes / as a clean absolute path); deleting the sandbox keeps it", async () => {
    const volume = (await env.c.post("/volumes", { name: "rootvol" })).body;
    const inner = (await env.c.post("/volumes", { name: "inner" })).body;
    const made = await env.c.post("/sandboxes", { templateID: "base", volumeMounts: [{ name: "inner", path: "/srv" }, { name: "rootvol", path: "/" }] });
    expect(made.status).toBe(201);
    const root = env.emu.state.sandboxes().find((s) => s.sandboxID === made.body.sandboxID)!.rootDir;
    const hostDir = join(env.emu.dataDir, "volumes", volume.volumeID);
    expect(readlinkSync(root)).toBe(hostDir);
    expect(isLink(join(root, "srv"))).toBe(env.emu.isolation.mode === "none");
    expect(lstatSync(join(hostDir, "home", "user")).isDirectory()).toBe(true);
    await put(made.body.sandboxID, "/at-root.txt", "root");
    await put(made.body.sandboxID, "/srv/in-inner.txt", "inner");
    expect(readFileSync(join(env.emu.dataDir, "volumes", inner.volumeID, "in-inner.txt"), "utf8")).toBe("inner");
    // envd's /run/e2b files are not the disk's on the service: none lands in the user's volume.
    expect(existsSync(join(hostDir, "run", "e2b"))).toBe(false);
    await env.c.del(`/sandboxes/${made.body.sandboxID}`);
    expect(readFileSync(join(hostDir, "at-root.txt"), "utf8")).toBe("root");
  });

  test("unknown volume → 400 naming the mount", async () => {
    const res = await env.c.post("/sandboxes", { templateID: "base", volumeMounts: [{ name: "ghost", path: "/data" }] });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("invalid mounts:\n\t- volume mount #0: volume 'ghost' not found");
  });

  test("every bad path is reported at once", async () => {
    await env.c.post("/volumes", { name: "paths" });
    const mounts = ["/ok", "relative", "/a/../b", "/ok", "", "/trail/"].map((path) => ({ name: "paths", path }));
    const res = await env.c.post("/sandboxes", { templateID: "base", volumeMounts: mounts });
    expect(res.body.message).toBe(
      [
        "invalid mounts:",
        "\t- volume mount #1: path must be absolute",
        "\t- volume mount #2: path must not contain any '.' or '..' components",
        "\t- volume mount #3: path '/ok' is already used",
        "\t- volume mount #4: path cannot be empty",
        "\t- volume mount #5: path must not contain any '.' or '..' components",
      ].join("\n"),
    );
  });
});

describe("SandboxDirectory (the store the in-sandbox API reads)", () => {
  const dir = mkdtempSync(join(tmpdir(), "sandbox-dir-test-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const input = (timeoutMs: number, autoPause = false) => ({
    templateID: "t", envdVersion: "0.6.4", secure: true, cpuCount: 2, memoryMB: 512, diskSizeMB: 512,
    metadata: {}, envVars: { A: "1" }, allowInternetAccess: null, autoPause, autoResume: false,
    volumeMounts: [], timeoutMs,
  });

  test("running() describes running sandboxes only; onStopped hears kill, a files-only pause and expiry, onFrozen a memory pause", async () => {
    const store = new SandboxStore(dir);
    const stopped: string[] = [];
    const frozen: string[] = [];
    store.onStopped((id) => void stopped.push(id));
    store.onFrozen((id) => (frozen.push(id), Promise.resolve()));
    const a = await store.create(input(60_000));
    expect(store.running(a.sandboxID)).toEqual({
      sandboxID: a.sandboxID, templateID: a.templateID, secure: true, envdAccessToken: a.envdAccessToken, trafficAccessToken: null, rootDir: join(dir, a.sandboxID),
      homePath: "/home/user", volumeMounts: [], envVars: { A: "1" }, isolation: { mode: "none", reason: "not asked for" },
      egress: { allowOut: [], denyOut: [], internet: true },
    });
    await store.pause(a.sandboxID, false);
    expect(store.running(a.sandboxID)).toBeUndefined();
    const b = await store.create(input(60_000));
    store.kill(b.sandboxID);
    const expiring = await store.create(input(1, true));
    await waitFor("expiry", () => (frozen.length === 1 ? true : undefined));
    expect(stopped).toEqual([a.sandboxID, b.sandboxID]);
    expect(frozen).toEqual([expiring.sandboxID]);
    expect(store.get(expiring.sandboxID).state).toBe("paused");
    expect(store.running("inope")).toBeUndefined();
    store.close();
  });
});
