/**
 * The volume content API (E2B spec/openapi-volumecontent.yml) on the emulator's origin: over raw
 * HTTP with the token GET /volumes/{id} mints, and through E2B's official SDK (`Volume`, unmodified).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Volume } from "e2b";
import { beforeAll, describe, expect, test } from "vitest";
import { useEmulator } from "./platform-helpers";

const env = useEmulator();
let volumeID = "";
let token = "";

beforeAll(async () => {
  const res = await env.c.post("/volumes", { name: "content" });
  ({ volumeID, token } = res.body);
});

const call = (method: string, kind: string, query: string, body?: string, auth = `Bearer ${token}`) =>
  fetch(`${env.emu.apiUrl}/volumecontent/${volumeID}/${kind}?${query}`, { method, headers: { authorization: auth }, ...(body === undefined ? {} : { body }) });
const hostPath = (path: string) => join(env.emu.state.volumes().find((v) => v.volumeID === volumeID)!.hostDir, path);

describe("over HTTP", () => {
  test("mkdir, upload, stat, list, download, chmod, delete: each lands in the volume's directory", async () => {
    expect((await call("POST", "dir", "path=/data")).status).toBe(201);
    const put = await call("PUT", "file", "path=/data/a.txt&mode=384", "hello");
    expect(put.status).toBe(201);
    expect(await put.json()).toMatchObject({ name: "a.txt", type: "file", path: "/data/a.txt", size: 5, mode: 0o600 });
    expect(readFileSync(hostPath("data/a.txt"), "utf8")).toBe("hello");
    expect(await (await call("GET", "path", "path=data/a.txt")).json()).toMatchObject({ path: "/data/a.txt", type: "file" });
    const listed = (await (await call("GET", "dir", "path=/")).json()) as { path: string }[];
    expect(listed.map((e) => e.path)).toEqual(["/data"]);
    const deep = (await (await call("GET", "dir", "path=/&depth=2")).json()) as { path: string }[];
    expect(deep.map((e) => e.path)).toEqual(["/data", "/data/a.txt"]);
    const got = await call("GET", "file", "path=/data/a.txt");
    expect(got.headers.get("content-type")).toBe("application/octet-stream");
    expect(await got.text()).toBe("hello");
    const patched = await call("PATCH", "path", "path=/data/a.txt", JSON.stringify({ mode: 0o644 }));
    expect(await patched.json()).toMatchObject({ mode: 0o644 });
    expect((await call("DELETE", "path", "path=/data")).status).toBe(204);
    expect(existsSync(hostPath("data"))).toBe(false);
  });

  test("errors: string codes, 404 for a missing path or parent, 409 without force, 400 out of the volume, 401 without its token", async () => {
    expect(await (await call("GET", "path", "path=/nope")).json()).toEqual({ code: "404", message: "path '/nope' not found" });
    expect((await call("PUT", "file", "path=/no/parent.txt", "x")).status).toBe(404);
    expect((await call("POST", "dir", "path=/a/b")).status).toBe(404);
    expect((await call("POST", "dir", "path=/a/b&force=true")).status).toBe(201);
    expect((await call("PUT", "file", "path=/f", "1")).status).toBe(201);
    expect((await call("PUT", "file", "path=/f", "2")).status).toBe(409);
    expect((await call("PUT", "file", "path=/f&force=true", "2")).status).toBe(201);
    expect((await call("GET", "path", "path=/../etc")).status).toBe(400);
    expect((await call("GET", "path", "")).status).toBe(400);
    expect((await call("GET", "path", "path=/", undefined, `Bearer ${env.emu.apiKey}`)).status).toBe(401);
    expect((await call("GET", "path", "path=/", undefined, "")).status).toBe(401);
    expect((await call("DELETE", "path", "path=/")).status).toBe(400);
  });

  test("a token for another volume is refused", async () => {
    const other = (await env.c.post("/volumes", { name: "content-other" })).body as { token: string };
    expect((await call("GET", "path", "path=/", undefined, `Bearer ${other.token}`)).status).toBe(401);
  });
});

test("E2B's official SDK writes, lists, reads and removes through it", async () => {
  const opts = { apiKey: env.emu.apiKey, apiUrl: env.emu.apiUrl };
  const vol = await Volume.create("sdk-content", opts);
  await vol.makeDir("/docs", { ...opts, force: true });
  await vol.writeFile("/docs/readme.md", "# hi", opts);
  expect((await vol.list("/docs", opts)).map((e) => e.name)).toEqual(["readme.md"]);
  expect(await vol.readFile("/docs/readme.md", { ...opts, format: "text" })).toBe("# hi");
  expect((await vol.getInfo("/docs/readme.md", opts)).size).toBe(4);
  await vol.remove("/docs", opts);
  expect(await vol.exists("/docs", opts)).toBe(false);
});
