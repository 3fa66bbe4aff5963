/**
 * The volume content API never reaches the host through a link a sandbox made in the volume. The
 * service serves a volume from a chroot (infra: orchestrator/pkg/chrooted): a link is followed
 * inside the volume, an absolute target from the volume's root and `..` stopping there. So a link
 * to a host path names a path of the volume, which here does not exist (404), and the host file or
 * dir it names keeps its mode, owner and content through every route. Links are made on the host
 * in the volume's directory, as a sandbox's `ln -s` leaves them.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { climbing, hostBait, type HostBait } from "./host-bait";
import { useEmulator } from "./platform-helpers";

const env = useEmulator();
let volumeID = "";
let token = "";
let volumeDir = "";
/** A dir and a file of the host's, outside the volume. */
let bait: HostBait;
let hostDir = "";
let hostFile = "";
const hostState = () => bait.state();
let before: ReturnType<typeof hostState>;

const call = (method: string, kind: string, query: string, body?: string) =>
  fetch(`${env.emu.apiUrl}/volumecontent/${volumeID}/${kind}?${query}`, { method, headers: { authorization: `Bearer ${token}` }, ...(body === undefined ? {} : { body }) });
const path = (p: string) => `path=${encodeURIComponent(p)}`;

beforeAll(async () => {
  ({ volumeID, token } = (await env.c.post("/volumes", { name: "links" })).body);
  volumeDir = env.emu.state.volumes().find((v) => v.volumeID === volumeID)!.hostDir;
  bait = hostBait("volume-links-host-");
  ({ dir: hostDir, file: hostFile } = bait);
  symlinkSync(hostFile, join(volumeDir, "abs-file"));
  symlinkSync(hostDir, join(volumeDir, "abs-dir"));
  symlinkSync(climbing(hostFile), join(volumeDir, "rel-file"));
  symlinkSync(climbing(hostDir), join(volumeDir, "rel-dir"));
  mkdirSync(join(volumeDir, "data"));
  writeFileSync(join(volumeDir, "data", "in.txt"), "inside");
  symlinkSync("data", join(volumeDir, "rel-in"));
  symlinkSync("/data", join(volumeDir, "abs-in"));
  before = hostState();
});
afterAll(() => bait?.remove());

describe("a link to the host, as the last segment or as a parent dir, reaches nothing outside", () => {
  const toFile = ["/abs-file", "/rel-file", "/abs-dir/secret", "/rel-dir/secret"];
  const toDir = ["/abs-dir", "/rel-dir"];

  test.each(toFile)("PATCH %s (chmod/chown): 404, the host file keeps its mode and owner", async (p) => {
    const res = await call("PATCH", "path", path(p), JSON.stringify({ mode: 0o666, uid: 4242, gid: 4242 }));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: "404" });
    expect(hostState()).toEqual(before);
  });

  test.each(toDir)("PATCH %s: 404, the host dir keeps its mode", async (p) => {
    expect((await call("PATCH", "path", path(p), JSON.stringify({ mode: 0o777 }))).status).toBe(404);
    expect(hostState()).toEqual(before);
  });

  test.each(toDir)("POST dir %s with a mode: 404 without force; with force the dir is made in the volume", async (p) => {
    expect((await call("POST", "dir", `${path(p)}&mode=511`)).status).toBe(404);
    expect((await call("POST", "dir", `${path(`${p}/sub`)}&mode=511`)).status).toBe(404);
    const forced = await call("POST", "dir", `${path(`${p}/sub`)}&mode=511&force=true`);
    expect(forced.status).toBe(201);
    expect(await forced.json()).toMatchObject({ type: "directory", path: `${hostDir}/sub` });
    expect(statSync(join(volumeDir, hostDir, "sub")).isDirectory()).toBe(true);
    expect(hostState()).toEqual(before);
    // The other tests need the link's path to be missing in the volume again.
    rmSync(join(volumeDir, hostDir.split("/")[1]!), { recursive: true });
  });

  test.each(toFile)("GET file %s: 404, nothing of the host's is read", async (p) => {
    const res = await call("GET", "file", path(p));
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain("the host's");
  });

  test.each(toFile)("PUT file %s (force): 404 (its parent is not in the volume), the host file is unchanged", async (p) => {
    expect((await call("PUT", "file", `${path(p)}&force=true`, "pwned")).status).toBe(404);
    expect(hostState()).toEqual(before);
  });

  test.each(toDir)("PUT file %s/new.txt: 404, nothing is made in the host dir", async (p) => {
    expect((await call("PUT", "file", path(`${p}/new.txt`), "pwned")).status).toBe(404);
    expect(hostState()).toEqual(before);
  });

  test.each(["/abs-dir/secret", "/rel-dir/secret"])("GET path %s (stat): 404", async (p) => {
    expect((await call("GET", "path", path(p))).status).toBe(404);
  });

  test.each(toDir)("GET dir %s: 404, and a listing of the volume never descends into a link", async (p) => {
    expect((await call("GET", "dir", path(p))).status).toBe(404);
    const all = (await (await call("GET", "dir", `${path("/")}&depth=3`)).json()) as { path: string; type: string }[];
    expect(all.map((e) => e.path)).not.toContain(`${p}/secret`);
    expect(all.find((e) => e.path === p)).toMatchObject({ type: "symlink" });
  });

  test.each(["/abs-dir/secret", "/rel-dir/secret"])("DELETE %s: 404, the host file stays", async (p) => {
    expect((await call("DELETE", "path", path(p))).status).toBe(404);
    expect(hostState()).toEqual(before);
  });
});

describe("links that resolve inside the volume work, as in the service's chroot", () => {
  test.each(["/rel-in/in.txt", "/abs-in/in.txt"])("GET file %s reads the volume's file", async (p) => {
    const res = await call("GET", "file", path(p));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("inside");
  });

  test("PATCH through a link changes the file in the volume", async () => {
    expect(await (await call("PATCH", "path", path("/abs-in/in.txt"), JSON.stringify({ mode: 0o640 }))).json()).toMatchObject({ mode: 0o640 });
    expect(statSync(join(volumeDir, "data", "in.txt")).mode & 0o777).toBe(0o640);
  });

  test("PUT through a link writes into the volume", async () => {
    expect((await call("PUT", "file", path("/rel-in/new.txt"), "new")).status).toBe(201);
    expect(readFileSync(join(volumeDir, "data", "new.txt"), "utf8")).toBe("new");
  });

  test("DELETE of a link removes the link, never what it points to", async () => {
    expect((await call("DELETE", "path", path("/abs-dir"))).status).toBe(204);
    expect(lstatSync(join(volumeDir, "abs-file")).isSymbolicLink()).toBe(true);
    expect(existsSync(join(volumeDir, "abs-dir"))).toBe(false);
    expect(hostState()).toEqual(before);
  });

  test("a loop of links is a 400 naming it", async () => {
    symlinkSync("/loop", join(volumeDir, "loop"));
    const res = await call("GET", "file", path("/loop"));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ message: "path '/loop': too many levels of symbolic links" });
  });
});
