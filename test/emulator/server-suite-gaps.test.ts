/**
 * The last gaps of E2B's own server suite (e2b-dev/infra: tests/integration) against the emulator,
 * each checked as that suite checks it (docs/service.md#what-the-server-suite-checks): the
 * validator's prefix on too little CPU or memory, a cached ENV step as the builder logs it, the
 * tags of snapshots (a chain of snapshots and forks, a name snapshotted twice), the team's peak of
 * concurrent sandboxes, auto-resume with the create's timeout, the proxy's own pages, and a kill
 * sent on the keep-alive connection of a file read that has just ended.
 */
import { pbkdf2 } from "node:crypto";
import { Agent, request } from "node:http";
import { Sandbox } from "e2b";
import { describe, expect, it } from "vitest";
import { get, loopback } from "./ports-helpers";
import { useEmulator, waitFor, type Res } from "./platform-helpers";

const env = useEmulator();
const opts = () => ({ apiKey: env.emu.apiKey, apiUrl: env.emu.apiUrl, sandboxUrl: env.emu.sandboxUrl });
const BROWSER = { "user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/58.0.3029.110 Safari/537.3" };
const ENVD = 49983;

async function sandbox(body: Record<string, unknown> = {}): Promise<string> {
  const res = await env.c.post("/sandboxes", { templateID: "base", autoPause: false, timeout: 120, ...body });
  expect(res.status).toBe(201);
  return res.body.sandboxID as string;
}

/** A request to a sandbox's port on the emulator's origin, routed by the headers the newest SDKs send. */
function toSandbox(id: string, port: number, headers: Record<string, string> = {}, path = "/") {
  return get(`${env.emu.sandboxUrl}${path}`, { "e2b-sandbox-id": id, "e2b-sandbox-port": String(port), ...headers });
}

describe("templates (tests/integration/internal/tests/api/templates)", () => {
  it("too few CPUs or too little memory is the validator's 400 (request_build_test.go)", async () => {
    const tooLow = [{ cpuCount: 0, memoryMB: 1024 }, { cpuCount: 2, memoryMB: 32 }];
    for (const resources of tooLow) {
      const v1 = await env.c.post("/templates", { dockerfile: "FROM e2bdev/base", ...resources }, "token");
      const v3 = await env.c.post("/v3/templates", { name: "too-low", ...resources });
      for (const res of [v1, v3]) {
        expect(res.status).toBe(400);
        expect(res.body.message).toMatch(/^validation error: request body has an error: Error at "\/(cpuCount|memoryMB)": number must be at least (1|128)$/);
      }
    }
    expect((await env.c.post("/templates", { dockerfile: "FROM e2bdev/base", cpuCount: 3 }, "token")).body.message).toBe("CPU count must be 1 or an even number");
  });

  it("a rebuild logs its unchanged ENV step as cached, as the builder words it (build_template_test.go, TestTemplateBuildCache)", async () => {
    const steps = [{ type: "ENV", args: ["ENV_VAR", "Hello, World!"] }, { type: "RUN", args: [': "${ENV_VAR:?ENV_VAR is not set or empty}"; echo "$ENV_VAR"'] }];
    const first = await buildV2("test-ubuntu-cache", steps);
    expect(first.status).toBe("ready");
    expect(first.logs).toContainEqual(expect.stringMatching(/^\[builder 1\/2\] ENV ENV_VAR Hello, World! \[[0-9a-f]{64}\]$/));
    const again = await buildV2("test-ubuntu-cache", steps);
    expect(again.status).toBe("ready");
    expect(again.logs.some((l) => l.includes("CACHED [builder 1/2] ENV ENV_VAR Hello, World!"))).toBe(true);
  });

  it("an ENV step with a key and no value, or no key, fails the build as the builder words it (commands/env.go)", async () => {
    const odd = await buildV2("env-odd", [{ type: "ENV", args: ["ALONE"] }]);
    expect(odd.status).toBe("error");
    expect(odd.logs).toContain("ENV requires both a key and value arguments");
    const none = await buildV2("arg-none", [{ type: "ARG", args: [] }]);
    expect(none.logs).toContain("ARG does not support passing no arguments");
  });
});

/** A v3 build of `name` from ubuntu:22.04 with `steps`, followed to its end: status and log lines. */
async function buildV2(name: string, steps: unknown[]): Promise<{ status: string; logs: string[] }> {
  const requested = await env.c.post("/v3/templates", { name, cpuCount: 2, memoryMB: 1024 });
  expect(requested.status).toBe(202);
  const { templateID, buildID } = requested.body as { templateID: string; buildID: string };
  expect((await env.c.post(`/v2/templates/${templateID}/builds/${buildID}`, { fromImage: "ubuntu:22.04", steps })).status).toBe(202);
  const done = await waitFor("the build's end", async () => {
    const res = await env.c.get(`/templates/${templateID}/builds/${buildID}/status?logsOffset=0&level=info`);
    return ["ready", "error"].includes(res.body.status) ? res : undefined;
  }, 60_000);
  return { status: done.body.status, logs: (done.body.logEntries as { message: string }[]).map((e) => e.message) };
}

describe("snapshot templates (tests/integration/internal/tests/api/sandboxes)", () => {
  /** The build the snapshot's `default` tag names, as the suite's defaultTagBuildID finds it. */
  async function defaultBuild(snapshotID: string): Promise<string> {
    const tags = await env.c.get(`/templates/${encodeURIComponent(snapshotID)}/tags`);
    expect(tags.status).toBe(200);
    const found = (tags.body as { tag: string; buildID: string }[]).find((t) => t.tag === "default");
    expect(found?.buildID).toMatch(/^[0-9a-f-]{36}$/);
    return found!.buildID;
  }

  async function snapshot(sandboxID: string, name?: string): Promise<{ snapshotID: string; names: string[] }> {
    const res = await env.c.post(`/sandboxes/${sandboxID}/snapshots`, name === undefined ? {} : { name });
    expect(res.status).toBe(201);
    return res.body;
  }

  it("a tree of snapshots and sandboxes started from them, made in quick succession (sandbox_rapid_pause_resume_test.go)", async () => {
    const a = await snapshot(await sandbox());
    const buildA = await defaultBuild(a.snapshotID);
    const b = await snapshot(await sandbox({ templateID: a.snapshotID }));
    const c = await snapshot(await sandbox({ templateID: a.snapshotID }));
    const d = await snapshot(await sandbox({ templateID: b.snapshotID }));
    const builds = [buildA, ...(await Promise.all([b, c, d].map((s) => defaultBuild(s.snapshotID))))];
    expect(new Set(builds).size).toBe(4);
  });

  it("a name snapshotted again: its default tag names the new build, which a sandbox started from the name gets (snapshot_template_test.go)", async () => {
    const source = await Sandbox.create("base", { ...opts(), timeoutMs: 120_000 });
    try {
      const name = `overwrite-snap-${source.sandboxId}`;
      const first = await snapshot(source.sandboxId, name);
      const build1 = await defaultBuild(first.snapshotID);
      await source.commands.run("echo snapshot-v2 > /tmp/snapshot-marker");
      const second = await snapshot(source.sandboxId, name);
      expect(second.snapshotID).toBe(first.snapshotID);
      expect(await defaultBuild(first.snapshotID)).not.toBe(build1);
      const started = await Sandbox.create(first.names[0]!, opts());
      expect((await started.commands.run("cat /tmp/snapshot-marker", { user: "user" })).stdout).toBe("snapshot-v2\n");
      await started.kill();
    } finally {
      await source.kill();
    }
  });
});

describe("metrics and auto-resume", () => {
  it("the team's max of concurrent sandboxes counts sandboxes started moments apart (team_metrics_max_test.go)", async () => {
    const team = (await env.c.get("/teams", "token")).body[0].teamID as string;
    await sandbox();
    await sandbox();
    const max = await env.c.get(`/teams/${team}/metrics/max?metric=concurrent_sandboxes`);
    expect(max.status).toBe(200);
    expect(max.body.value).toBeGreaterThan(1);
    expect(max.body.timestampUnix).toBeGreaterThan(0);
    const rate = await env.c.get(`/teams/${team}/metrics/max?metric=sandbox_start_rate`);
    expect(rate.body.value).toBeGreaterThan(0);
  });

  /** Pauses `id`, calls its envd through the proxy (which resumes it), and says how long it then has to live, in s. */
  async function resumedLifetime(id: string): Promise<number> {
    expect((await env.c.post(`/sandboxes/${id}/pause`)).status).toBe(204);
    expect((await toSandbox(id, ENVD, {}, "/health")).status).toBe(204);
    const detail = await env.c.get(`/sandboxes/${id}`);
    expect(detail.body.state).toBe("running");
    return (Date.parse(detail.body.endAt) - Date.parse(detail.body.startedAt)) / 1000;
  }

  it("auto-resume runs the sandbox for the create's timeout, not for a later one (proxies/auto_resume_test.go)", async () => {
    const lifecycle = { autoPause: true, autoResume: { enabled: true } };
    const id = await sandbox({ ...lifecycle, timeout: 420 });
    const before = await env.c.get(`/sandboxes/${id}`);
    expect((await env.c.post(`/sandboxes/${id}/timeout`, { timeout: 600 })).status).toBe(204);
    expect(Date.parse((await env.c.get(`/sandboxes/${id}`)).body.endAt)).toBeGreaterThan(Date.parse(before.body.endAt));
    expect(await resumedLifetime(id)).toBeCloseTo(420, -1);
    // Without a timeout of its own (the API's 15 s), at least the 5-minute minimum.
    expect(await resumedLifetime(await sandbox({ ...lifecycle, timeout: undefined }))).toBeCloseTo(300, -1);
  });
});

describe("the proxy's own answers (tests/integration/internal/tests/proxies)", () => {
  function expectPage(res: Awaited<ReturnType<typeof get>>, status: number, ...contains: string[]): void {
    expect([res.status, res.type]).toEqual([status, "text/html; charset=utf-8"]);
    expect(res.text.startsWith("<html")).toBe(true);
    expect(res.text.endsWith("</html>")).toBe(true);
    for (const text of contains) expect(res.text).toContain(text);
  }

  it("an unknown sandbox (sandbox_not_found_test.go)", async () => {
    const id = "i0000000000000000000unknown";
    const json = await toSandbox(id, 3210);
    expect([json.status, json.type]).toEqual([502, "application/json; charset=utf-8"]);
    expect(JSON.parse(json.text)).toMatchObject({ message: "The sandbox was not found", sandboxId: id });
    expectPage(await toSandbox(id, 3210, BROWSER), 502, "Sandbox Not Found", id);
  });

  it("a port nothing listens on (closed_port_test.go)", async () => {
    const id = await sandbox();
    const json = await toSandbox(id, 3210);
    expect([json.status, json.type]).toEqual([502, "application/json; charset=utf-8"]);
    expect(JSON.parse(json.text)).toMatchObject({ message: "The sandbox is running but port is not open", sandboxId: id, port: 3210 });
    expectPage(await toSandbox(id, 3210, BROWSER), 502, "no service running on port", id, "3210");
  });

  it("a missing or a wrong traffic access token (traffic_access_token_test.go)", async () => {
    const id = await sandbox({ network: { allowPublicTraffic: false }, secure: true });
    const message = (what: string) => `Sandbox is secured with traffic access token. ${what}`;
    const missing = await toSandbox(id, 8080);
    expect([missing.status, missing.type]).toEqual([403, "application/json; charset=utf-8"]);
    expect(JSON.parse(missing.text)).toMatchObject({ message: message("Token header 'e2b-traffic-access-token' is missing"), sandboxId: id });
    expectPage(await toSandbox(id, 8080, BROWSER), 403, "Missing Traffic Access Token", id);
    const wrong = { "e2b-traffic-access-token": "abcd" };
    expect(JSON.parse((await toSandbox(id, 8080, wrong)).text)).toMatchObject({ message: message("Provided token in header 'e2b-traffic-access-token' is invalid") });
    expectPage(await toSandbox(id, 8080, { ...wrong, ...BROWSER }), 403, "Invalid Traffic Access Token", id);
  });
});

describe("a kill on the connection of a file read that has just ended (the Python SDK suite's test_write_io_with_octet_stream teardown)", () => {
  /** `method path` on `agent` (the API and the sandboxes share the emulator's origin): status, body, and whether the connection was used before. */
  function call(agent: Agent, method: string, path: string, headers: Record<string, string> = {}): Promise<Res & { reused: boolean }> {
    return new Promise((resolve, reject) => {
      const req = request(`${env.emu.apiUrl}${path}`, { method, agent, lookup: loopback, headers: { "x-api-key": env.emu.apiKey, ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: new Headers(), reused: req.reusedSocket }));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end();
    });
  }

  /** Keeps libuv's thread pool busy until `stop`, so that a read of the end of a file waits its turn. */
  function busyThreadPool(): () => void {
    let running = true;
    const spin = () => void pbkdf2("x", "y", 200_000, 32, "sha256", () => running && spin());
    for (let i = 0; i < 8; i++) spin();
    return () => void (running = false);
  }

  it("the kill's answer comes on the same keep-alive connection, not a reset", async () => {
    const text = "Streamed octet-stream upload. ".repeat(10_000);
    // Not secured (the raw create's default), so envd takes the read without a token or a signature.
    const box = await Sandbox.connect(await sandbox(), opts());
    await box.files.write("/home/user/big.bin", text);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const stop = busyThreadPool();
    try {
      const read = await call(agent, "GET", "/files?path=/home/user/big.bin&username=user", { "e2b-sandbox-id": box.sandboxId, "e2b-sandbox-port": String(ENVD) });
      expect([read.status, (read.body as Buffer).length], String(read.body)).toEqual([200, text.length]);
      const kill = await call(agent, "DELETE", `/sandboxes/${box.sandboxId}`);
      expect([kill.status, kill.reused]).toEqual([204, true]);
    } finally {
      stop();
      agent.destroy();
    }
  });
});
