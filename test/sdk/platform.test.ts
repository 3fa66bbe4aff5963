/**
 * Every platform operation of the sdk against the emulator (a real, stateful server on 127.0.0.1):
 * success and failure, with the codes and messages a caller sees.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { PlatformClient } from "../../sdk/platform/client";
import type { ClientOptions } from "../../sdk/config";
import { failure } from "./expect-error";
import type { BuildFailedError } from "../../sdk/platform/templates";

let emu: Emulator;
let sdk: PlatformClient;
const clients: PlatformClient[] = [];

function clientFor(options: ClientOptions = {}): PlatformClient {
  const c = new PlatformClient({ apiUrl: emu.apiUrl, apiKey: emu.apiKey, accessToken: emu.accessToken, retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 }, ...options }, {});
  clients.push(c);
  return c;
}

beforeAll(async () => {
  emu = await createEmulator({ buildDelayMs: 100 });
  sdk = clientFor();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await emu.close();
});

const notFound = (id: string) => `Sandbox "${id}" doesn't exist or you don't have access to it`;

describe("sandboxes", () => {
  test("create → 201 Sandbox; get → its detail; kill → 204, then 404", async () => {
    const sbx = await sdk.sandboxes.create({ templateID: "base", timeout: 120, metadata: { suite: "platform", n: "1" } });
    expect(sbx.sandboxID).toMatch(/^i[a-z0-9]{20}$/);
    // POST /v2/sandboxes secures every sandbox: its answer carries the in-sandbox API's token.
    expect(sbx.envdAccessToken).toMatch(/^[0-9a-f]{64}$/);
    expect(sbx.domain).toBeNull();
    const detail = await sdk.sandboxes.get(sbx.sandboxID);
    expect(detail).toMatchObject({ sandboxID: sbx.sandboxID, templateID: sbx.templateID, state: "running", metadata: { suite: "platform", n: "1" } });
    expect(detail.lifecycle).toEqual({ autoResume: false, onTimeout: "kill" });
    expect(Date.parse(detail.endAt) - Date.parse(detail.startedAt)).toBeGreaterThanOrEqual(119_000);
    await expect(sdk.sandboxes.kill(sbx.sandboxID)).resolves.toBeUndefined();
    const err = await failure(sdk.sandboxes.get(sbx.sandboxID));
    expect(err.code).toBe("not_found");
    expect(err.status).toBe(404);
    expect(err.message).toBe(`GET /sandboxes/{id} failed (404 not_found): ${notFound(sbx.sandboxID)}`);
  });

  test("a secure sandbox gets an access token", async () => {
    const sbx = await sdk.sandboxes.create({ templateID: "base", secure: true });
    expect(typeof sbx.envdAccessToken).toBe("string");
    expect((await sdk.sandboxes.get(sbx.sandboxID)).envdAccessToken).toBe(sbx.envdAccessToken);
    await sdk.sandboxes.kill(sbx.sandboxID);
  });

  test("create failures: 400 with the service's message, 404 unknown template", async () => {
    const zero = await failure(sdk.sandboxes.create({ templateID: "base", timeout: 0 }));
    expect(zero.code).toBe("invalid_argument");
    expect(zero.message).toBe("POST /v2/sandboxes failed (400 invalid_argument): Timeout must be greater than 0");
    expect(zero.service).toEqual({ code: 400, message: "Timeout must be greater than 0" });
    const missing = await failure(sdk.sandboxes.create({ templateID: "no-such-template" }));
    expect(missing.code).toBe("not_found");
    expect(missing.message).toBe("POST /v2/sandboxes failed (404 not_found): template 'no-such-template' not found");
  });

  test("kill, setTimeout and get of unknown or malformed IDs", async () => {
    expect((await failure(sdk.sandboxes.kill("inosuchsandbox000000000"))).message).toBe(
      `DELETE /sandboxes/{id} failed (404 not_found): ${notFound("inosuchsandbox000000000")}`,
    );
    expect((await failure(sdk.sandboxes.setTimeout("inosuchsandbox000000000", 30))).code).toBe("not_found");
    const bad = await failure(sdk.sandboxes.get("NOT_AN_ID"));
    expect(bad.code).toBe("invalid_argument");
    expect(bad.message).toBe("GET /sandboxes/{id} failed (400 invalid_argument): Invalid sandbox ID");
  });

  test("setTimeout → 204 and moves endAt", async () => {
    const sbx = await sdk.sandboxes.create({ templateID: "base", timeout: 30 });
    await sdk.sandboxes.setTimeout(sbx.sandboxID, 3600);
    const detail = await sdk.sandboxes.get(sbx.sandboxID);
    expect(Date.parse(detail.endAt) - Date.now()).toBeGreaterThan(3000_000);
    await sdk.sandboxes.kill(sbx.sandboxID);
  });

  test("pause → paused (a second pause is not an error); connect resumes it", async () => {
    const sbx = await sdk.sandboxes.create({ templateID: "base", timeout: 60 });
    await sdk.sandboxes.pause(sbx.sandboxID);
    expect((await sdk.sandboxes.get(sbx.sandboxID)).state).toBe("paused");
    await expect(sdk.sandboxes.pause(sbx.sandboxID)).resolves.toBeUndefined();
    const resumed = await sdk.sandboxes.connect(sbx.sandboxID, { timeout: 60 });
    expect(resumed.sandboxID).toBe(sbx.sandboxID);
    expect((await sdk.sandboxes.get(sbx.sandboxID)).state).toBe("running");
    await expect(sdk.sandboxes.connect(sbx.sandboxID, { timeout: 60 })).resolves.toMatchObject({ sandboxID: sbx.sandboxID });
    await sdk.sandboxes.kill(sbx.sandboxID);
    expect((await failure(sdk.sandboxes.pause(sbx.sandboxID))).code).toBe("not_found");
  });

  test("list filters by metadata and state, pages with nextToken; listAll follows the pages", async () => {
    const tag = `list-${Date.now()}`;
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await sdk.sandboxes.create({ templateID: "base", metadata: { tag, "odd key": "a b&c" } }));
    await sdk.sandboxes.pause(made[0]!.sandboxID);
    const first = await sdk.sandboxes.list({ metadata: { tag, "odd key": "a b&c" }, limit: 2 });
    expect(first.sandboxes).toHaveLength(2);
    expect(first.nextToken).toEqual(expect.any(String));
    const second = await sdk.sandboxes.list({ metadata: { tag }, limit: 2, nextToken: first.nextToken! });
    expect(second.sandboxes).toHaveLength(1);
    expect(second.nextToken).toBeUndefined();
    const all = await sdk.sandboxes.listAll({ metadata: { tag }, limit: 1 });
    expect(all.map((s) => s.sandboxID).sort()).toEqual(made.map((s) => s.sandboxID).sort());
    const running = await sdk.sandboxes.listAll({ metadata: { tag }, state: ["running"] });
    expect(running.map((s) => s.sandboxID).sort()).toEqual([made[1]!.sandboxID, made[2]!.sandboxID].sort());
    expect(await sdk.sandboxes.listAll({ metadata: { tag: "nothing-has-this" } })).toEqual([]);
    for (const s of made) await sdk.sandboxes.kill(s.sandboxID);
  });

  test("metrics keyed by sandbox ID; an empty list sends nothing", async () => {
    const sbx = await sdk.sandboxes.create({ templateID: "base" });
    const metrics = await sdk.sandboxes.metrics([sbx.sandboxID, sbx.sandboxID]);
    expect(Object.keys(metrics)).toEqual([sbx.sandboxID]);
    expect(metrics[sbx.sandboxID]!.memTotal).toBeGreaterThan(0);
    const before = emu.calls().length;
    expect(await sdk.sandboxes.metrics([])).toEqual({});
    expect(emu.calls().length).toBe(before);
    await sdk.sandboxes.kill(sbx.sandboxID);
  });

  test("logs", async () => {
    const sbx = await sdk.sandboxes.create({ templateID: "base" });
    const logs = await sdk.sandboxes.logs(sbx.sandboxID, { start: 0, limit: 10 });
    expect(Array.isArray(logs.logs)).toBe(true);
    expect(logs.logEntries.length).toBe(logs.logs.length);
    await sdk.sandboxes.kill(sbx.sandboxID);
    expect((await failure(sdk.sandboxes.logs(sbx.sandboxID))).code).toBe("not_found");
  });

  test("a wrong API key → 401 with the service's message, the key nowhere in it", async () => {
    const wrongKey = "e2b_00000000000000000000000000000000";
    const err = await failure(clientFor({ apiKey: wrongKey }).sandboxes.get("i1"));
    expect(err.code).toBe("unauthenticated");
    expect(err.message).toBe(
      "GET /sandboxes/{id} failed (401 unauthenticated): Invalid API key, please visit https://e2b.dev/docs/api-key for more information.",
    );
    expect(err.message).not.toContain(wrongKey);
  });
});

describe("templates", () => {
  const dockerfile = "FROM e2bdev/base\nRUN echo hello\nRUN echo world";

  test("create (Bearer) → 202; waitForBuild streams the logs to ready; get, list, rebuild, setPublic, delete", async () => {
    const accepted = await sdk.templates.create({ dockerfile, alias: "sdk-web", cpuCount: 2, memoryMB: 1024 });
    expect(accepted.aliases).toEqual(["sdk-web"]);
    expect(accepted.public).toBe(false);
    const lines: string[] = [];
    const done = await sdk.templates.waitForBuild(accepted.templateID, accepted.buildID, { intervalMs: 20, timeoutMs: 30_000, onLog: (e) => lines.push(e.message) });
    expect(done.status).toBe("ready");
    expect(lines).toContain("[1/2] RUN echo hello");
    expect(done.logEntries.map((e) => e.message)).toEqual(lines);

    const withBuilds = await sdk.templates.get(accepted.templateID);
    expect(withBuilds.builds.map((b) => [b.buildID, b.status])).toEqual([[accepted.buildID, "ready"]]);
    expect((await sdk.templates.list()).map((t) => t.templateID)).toContain(accepted.templateID);

    const again = await sdk.templates.rebuild(accepted.templateID, { dockerfile });
    expect(again.templateID).toBe(accepted.templateID);
    expect(again.buildID).not.toBe(accepted.buildID);
    await sdk.templates.waitForBuild(again.templateID, again.buildID, { intervalMs: 20, timeoutMs: 30_000 });

    const published = await sdk.templates.setPublic(accepted.templateID, true);
    expect(published.names.length).toBeGreaterThan(0);
    expect((await sdk.templates.get(accepted.templateID)).public).toBe(true);

    await expect(sdk.templates.delete(accepted.templateID)).resolves.toBeUndefined();
    const gone = await failure(sdk.templates.get(accepted.templateID));
    expect(gone.code).toBe("not_found");
    expect(gone.message).toBe(`GET /templates/{id} failed (404 not_found): Template '${accepted.templateID}' not found`);
  });

  test("a failing build → build_failed naming the step and quoting the log", async () => {
    const accepted = await sdk.templates.create({ dockerfile: "FROM e2bdev/base\nRUN exit 3" });
    const err = (await failure(sdk.templates.waitForBuild(accepted.templateID, accepted.buildID, { intervalMs: 20, timeoutMs: 30_000 }))) as BuildFailedError;
    expect(err.code).toBe("build_failed");
    expect(err.message).toMatch(
      new RegExp(`^Template ${accepted.templateID} build ${accepted.buildID} failed at step 1: failed to run command 'exit 3': exit status 3\\nLast log lines:\\n`),
    );
    expect(err.message).toContain("[error] command 'exit 3' exited with code 3");
    expect(err.build.status).toBe("error");
    await sdk.templates.delete(accepted.templateID);
  });

  test("buildStatus of an unknown build is a 400; of a known one pages its logs", async () => {
    const accepted = await sdk.templates.create({ dockerfile });
    await sdk.templates.waitForBuild(accepted.templateID, accepted.buildID, { intervalMs: 20, timeoutMs: 30_000 });
    const page = await sdk.templates.buildStatus(accepted.templateID, accepted.buildID, { logsOffset: 1, limit: 2 });
    expect(page.logEntries).toHaveLength(2);
    const unknown = "00000000-0000-4000-8000-000000000000";
    const err = await failure(sdk.templates.buildStatus(accepted.templateID, unknown));
    expect(err.code).toBe("invalid_argument");
    expect(err.message).toBe(`GET /templates/{id}/builds/{buildID}/status failed (400 invalid_argument): Build '${unknown}' not found`);
    await sdk.templates.delete(accepted.templateID);
  });

  test("a template still used by a sandbox cannot be deleted", async () => {
    const accepted = await sdk.templates.create({ dockerfile, alias: "sdk-used" });
    await sdk.templates.waitForBuild(accepted.templateID, accepted.buildID, { intervalMs: 20, timeoutMs: 30_000 });
    const sbx = await sdk.sandboxes.create({ templateID: "sdk-used" });
    expect(sbx.templateID).toBe(accepted.templateID);
    const err = await failure(sdk.templates.delete(accepted.templateID));
    expect(err.code).toBe("invalid_argument");
    expect(err.message).toBe(
      `DELETE /templates/{id} failed (400 invalid_argument): cannot delete template '${accepted.templateID}' because there are running sandboxes using it`,
    );
    await sdk.sandboxes.kill(sbx.sandboxID);
    await sdk.templates.delete(accepted.templateID);
  });

  test("credentials: v1 builds need the access token; setPublic falls back to it", async () => {
    const keyOnly = clientFor({ accessToken: undefined });
    const missing = await failure(keyOnly.templates.create({ dockerfile }));
    expect(missing.code).toBe("missing_credential");
    expect(missing.message).toContain("E2B_ACCESS_TOKEN");
    const wrongToken = await failure(clientFor({ accessToken: "sk_e2b_00000000000000000000" }).templates.create({ dockerfile }));
    expect(wrongToken.code).toBe("unauthenticated");
    expect(wrongToken.message).toBe("POST /templates failed (401 unauthenticated): Invalid Access token, try to login again by running `e2b auth login`.");

    const accepted = await sdk.templates.create({ dockerfile });
    const tokenOnly = clientFor({ apiKey: undefined });
    await expect(tokenOnly.templates.setPublic(accepted.templateID, true)).resolves.toEqual({ names: [] });
    await sdk.templates.waitForBuild(accepted.templateID, accepted.buildID, { intervalMs: 20, timeoutMs: 30_000 });
    await sdk.templates.delete(accepted.templateID);
  });

  test("the built-in template belongs to another team: 403", async () => {
    const base = (await sdk.sandboxes.create({ templateID: "base" }));
    const err = await failure(sdk.templates.setPublic(base.templateID, false));
    expect(err.code).toBe("permission_denied");
    expect(err.message).toBe(`PATCH /v2/templates/{id} failed (403 permission_denied): You do not have access to the template '${base.templateID}'`);
    await sdk.sandboxes.kill(base.sandboxID);
  });
});

describe("volumes", () => {
  test("create → 201 with a token; get mints a new one; list; mount; delete → 204, then 404", async () => {
    const vol = await sdk.volumes.create({ name: "sdk-data" });
    expect(vol.volumeID).toMatch(/^[0-9a-f-]{36}$/);
    expect(vol.name).toBe("sdk-data");
    expect(vol.token.length).toBeGreaterThan(20);
    const fetched = await sdk.volumes.get(vol.volumeID);
    expect(fetched.volumeID).toBe(vol.volumeID);
    expect(await sdk.volumes.list()).toContainEqual({ volumeID: vol.volumeID, name: "sdk-data" });

    const sbx = await sdk.sandboxes.create({ templateID: "base", volumeMounts: [{ name: "sdk-data", path: "/mnt/data" }] });
    expect((await sdk.sandboxes.get(sbx.sandboxID)).volumeMounts).toEqual([{ name: "sdk-data", path: "/mnt/data" }]);
    await sdk.sandboxes.kill(sbx.sandboxID);

    await expect(sdk.volumes.delete(vol.volumeID)).resolves.toBeUndefined();
    const gone = await failure(sdk.volumes.get(vol.volumeID));
    expect(gone.code).toBe("not_found");
    expect(gone.message).toBe("GET /volumes/{id} failed (404 not_found): Volume not found");
    expect((await failure(sdk.volumes.delete(vol.volumeID))).code).toBe("not_found");
  });

  test("bad inputs: duplicate name, name pattern, non-UUID ID → 400 with the service's message", async () => {
    const vol = await sdk.volumes.create({ name: "sdk-dup" });
    expect((await failure(sdk.volumes.create({ name: "sdk-dup" }))).message).toBe(
      "POST /volumes failed (400 invalid_argument): Volume with name 'sdk-dup' already exists",
    );
    const pattern = await failure(sdk.volumes.create({ name: "no spaces" }));
    expect(pattern.code).toBe("invalid_argument");
    expect(pattern.message).toMatch(/^POST \/volumes failed \(400 invalid_argument\): validation error: request body has an error: Error at "\/name"/);
    expect((await failure(sdk.volumes.get("not-a-uuid"))).message).toBe("GET /volumes/{id} failed (400 invalid_argument): Invalid volume ID");
    await sdk.volumes.delete(vol.volumeID);
  });
});

describe("retries against the emulator's fault switches", () => {
  test("429s are retried, then reported with the attempt count", async () => {
    emu.setFaults({ rate429: 1 });
    try {
      const err = await failure(sdk.volumes.list());
      expect(err.code).toBe("rate_limited");
      expect(err.message).toBe("GET /volumes failed (429 rate_limited): Rate limit exceeded (gave up after 3 attempts)");
    } finally {
      emu.setFaults({});
    }
  });

  test("a create whose answer is lost is not repeated: exactly one sandbox exists", async () => {
    const before = emu.state.sandboxes().length;
    emu.setFaults({ dropAfterRate: 1 });
    try {
      const err = await failure(sdk.sandboxes.create({ templateID: "base", metadata: { drop: "after" } }));
      expect(err.code).toBe("unavailable");
      expect(err.message).toContain("not repeated, because the service may have processed it");
    } finally {
      emu.setFaults({});
    }
    const created = emu.state.sandboxes().filter((s) => s.metadata?.drop === "after");
    expect(created).toHaveLength(1);
    expect(emu.state.sandboxes().length).toBe(before + 1);
    await sdk.sandboxes.kill(created[0]!.sandboxID);
  });

  test("GETs whose connections are dropped are repeated until answered", async () => {
    emu.setFaults({ dropRate: 0.5, faultSeed: 7 });
    const patient = clientFor({ retry: { maxAttempts: 20, baseDelayMs: 1, maxDelayMs: 5 } });
    try {
      for (let i = 0; i < 4; i++) await expect(patient.volumes.list()).resolves.toEqual(expect.any(Array));
    } finally {
      emu.setFaults({});
    }
    expect(emu.calls().filter((c) => c.fault === "drop").length).toBeGreaterThan(0);
  });
});
