import { describe, expect, test } from "vitest";
import { useEmulator } from "./platform-helpers";

const BASE_ID = "rki5dems9wqfm4r03t7g";
const NOT_FOUND = (id: string) => `Sandbox "${id}" doesn't exist or you don't have access to it`;

const env = useEmulator();

describe("auth and health", () => {
  test("GET /health answers 200 with the service's text, without credentials", async () => {
    const res = await fetch(`${env.emu.apiUrl}/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await res.text()).toBe("Health check successful");
  });

  test.each([
    ["no key", "none" as const],
    ["a wrong key", { "x-api-key": "e2b_0000" }],
    ["the access token instead of the key", "token" as const],
  ])("%s → 401 with the real message", async (_name, auth) => {
    const res = await env.c.post("/sandboxes", { templateID: "base" }, auth);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 401, message: "Invalid API key, please visit https://e2b.dev/docs/api-key for more information." });
  });

  test("default credentials have the real formats", () => {
    expect(env.emu.apiKey).toMatch(/^e2b_[0-9a-f]{40}$/);
    expect(env.emu.accessToken).toMatch(/^sk_e2b_[0-9a-f]{40}$/);
    expect(env.emu.sandboxUrl).toBe(env.emu.apiUrl);
  });

  test("unknown routes are 404 and wrong methods 405, in the error shape", async () => {
    expect((await env.c.get("/nope")).body).toEqual({ code: 404, message: "no route for GET /nope" });
    expect((await env.c.call("PUT", "/volumes")).body).toEqual({ code: 405, message: "method PUT is not allowed on /volumes" });
  });
});

describe("POST /sandboxes", () => {
  test("creates from the built-in base template: 201 with the Sandbox shape", async () => {
    const res = await env.c.post("/sandboxes", { templateID: "base" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      templateID: BASE_ID,
      sandboxID: expect.stringMatching(/^i[a-z0-9]{20}$/),
      alias: "base",
      clientID: expect.any(String),
      envdVersion: "0.6.4",
      trafficAccessToken: null,
      domain: null,
    });
  });

  test("secure sandboxes get an envd access token; private traffic gets a traffic token", async () => {
    const res = await env.c.post("/sandboxes", { templateID: BASE_ID, secure: true, network: { allowPublicTraffic: false } });
    expect(res.status).toBe(201);
    expect(res.body.envdAccessToken).toMatch(/^[0-9a-f]{64}$/);
    expect(res.body.trafficAccessToken).toMatch(/^[0-9a-f]{64}$/);
    const got = await env.c.get(`/sandboxes/${res.body.sandboxID}`);
    expect(got.body.envdAccessToken).toBe(res.body.envdAccessToken);
  });

  test("allowPublicTraffic=false without secure → 400", async () => {
    const res = await env.c.post("/sandboxes", { templateID: "base", network: { allowPublicTraffic: false } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("You cannot create a sandbox without public access unless you enable secure envd access via 'secure' flag.");
  });

  test.each([
    [0, "Timeout must be greater than 0"],
    [-5, "Timeout must be greater than 0"],
    [86_401, "Timeout cannot be greater than 24 hours"],
  ])("timeout %d → 400 %s", async (timeout, message) => {
    const res = await env.c.post("/sandboxes", { templateID: "base", timeout });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message });
  });

  test("schema violations are 400 naming the field", async () => {
    const wrongType = await env.c.post("/sandboxes", { templateID: "base", timeout: "ten" });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.message).toMatch(/^validation error: request body has an error: Error at "\/timeout": .*expected number/);
    const missing = await env.c.post("/sandboxes", { timeout: 10 });
    expect(missing.body.message).toBe('validation error: request body has an error: Error at "/templateID": property "templateID" is missing');
    const badMeta = await env.c.post("/sandboxes", { templateID: "base", metadata: { n: 1 } });
    expect(badMeta.body.message).toMatch(/^validation error: request body has an error: Error at "\/metadata\/n": /);
    const notJson = await env.c.post("/sandboxes", "{oops");
    expect(notJson.status).toBe(400);
    expect(notJson.body.message).toMatch(/^validation error: request body has an error: failed to decode request body: /);
    const empty = await env.c.post("/sandboxes");
    expect(empty.body).toEqual({ code: 400, message: "validation error: request body has an error: value is required but missing" });
  });

  test("autoPauseMemory=false needs autoPause=true", async () => {
    const res = await env.c.post("/sandboxes", { templateID: "base", autoPauseMemory: false });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("autoPauseMemory can be false only when autoPause is true");
  });

  test("unknown template → 404; unknown tag → 404 naming the tag", async () => {
    const missing = await env.c.post("/sandboxes", { templateID: "nope" });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe("template 'nope' not found");
    const tag = await env.c.post("/sandboxes", { templateID: "base:v2" });
    expect(tag.status).toBe(404);
    expect(tag.body.message).toBe("tag 'v2' does not exist for template 'base'");
    expect((await env.c.post("/sandboxes", { templateID: "base:default" })).status).toBe(201);
  });
});

describe("POST /v2/sandboxes (the official SDK's create)", () => {
  test("always secured, 300 s default time to live, same rules", async () => {
    const res = await env.c.post("/v2/sandboxes", { templateID: "base" });
    expect(res.status).toBe(201);
    expect(res.body.envdAccessToken).toMatch(/^[0-9a-f]{64}$/);
    const got = (await env.c.get(`/sandboxes/${res.body.sandboxID}`)).body;
    expect(Date.parse(got.endAt) - Date.parse(got.startedAt)).toBe(300_000);
    expect((await env.c.post("/v2/sandboxes", { templateID: "base", timeout: 0 })).body.message).toBe("Timeout must be greater than 0");
    const priv = await env.c.post("/v2/sandboxes", { templateID: "base", network: { allowPublicTraffic: false } });
    expect(priv.body.trafficAccessToken).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("GET /sandboxes/{id}", () => {
  test("returns the SandboxDetail; envVars are stored but never echoed", async () => {
    const created = await env.c.post("/sandboxes", {
      templateID: "base", timeout: 120, metadata: { owner: "ann" }, envVars: { SECRET: "x" },
      allow_internet_access: false, autoPause: true, autoResume: { enabled: true }, network: { allowOut: ["1.1.1.1"] },
    });
    const res = await env.c.get(`/sandboxes/${created.body.sandboxID}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      sandboxID: created.body.sandboxID, templateID: BASE_ID, alias: "base", state: "running",
      cpuCount: 2, memoryMB: 512, diskSizeMB: 5120, envdVersion: "0.6.4", metadata: { owner: "ann" },
      allowInternetAccess: false, domain: null, volumeMounts: [],
      network: { allowOut: ["1.1.1.1"] }, lifecycle: { autoResume: true, onTimeout: "pause" },
    });
    expect(res.body).not.toHaveProperty("envVars");
    // The spec types envdAccessToken as a string: a sandbox that is not secure has no such key.
    expect(res.body).not.toHaveProperty("envdAccessToken");
    expect(Date.parse(res.body.endAt) - Date.parse(res.body.startedAt)).toBe(120_000);
  });

  test("defaults: 15 s time to live, kill on timeout, allowInternetAccess null", async () => {
    const created = await env.c.post("/sandboxes", { templateID: "base" });
    const res = await env.c.get(`/sandboxes/${created.body.sandboxID}`);
    expect(Date.parse(res.body.endAt) - Date.parse(res.body.startedAt)).toBe(15_000);
    expect(res.body.lifecycle).toEqual({ autoResume: false, onTimeout: "kill" });
    expect(res.body.allowInternetAccess).toBeNull();
  });

  test("accepts the legacy `<id>-<clientID>` form", async () => {
    const created = await env.c.post("/sandboxes", { templateID: "base" });
    const res = await env.c.get(`/sandboxes/${created.body.sandboxID}-${created.body.clientID}`);
    expect(res.status).toBe(200);
    expect(res.body.sandboxID).toBe(created.body.sandboxID);
  });

  test("unknown → 404 with the real message; malformed → 400", async () => {
    const res = await env.c.get("/sandboxes/iaaaaaaaaaaaaaaaaaaaa");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 404, message: NOT_FOUND("iaaaaaaaaaaaaaaaaaaaa") });
    const bad = await env.c.get("/sandboxes/Not_An_ID");
    expect(bad.body).toEqual({ code: 400, message: "Invalid sandbox ID" });
  });
});

describe("metrics and logs", () => {
  test("GET /sandboxes/metrics reports running sandboxes only", async () => {
    const a = (await env.c.post("/sandboxes", { templateID: "base" })).body.sandboxID;
    const res = await env.c.get(`/sandboxes/metrics?sandbox_ids=${a},iunknown`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.sandboxes)).toEqual([a]);
    expect(res.body.sandboxes[a]).toMatchObject({ cpuCount: 2, memTotal: 512 * 1024 * 1024, diskTotal: 5120 * 1024 * 1024 });
    expect(res.body.sandboxes[a].timestampUnix).toBe(Math.floor(Date.parse(res.body.sandboxes[a].timestamp) / 1000));
  });

  test("GET /sandboxes/{id}/metrics: one reading while running, none while paused", async () => {
    const id = (await env.c.post("/sandboxes", { templateID: "base" })).body.sandboxID;
    const running = await env.c.get(`/sandboxes/${id}/metrics`);
    expect(running.body).toEqual([expect.objectContaining({ cpuCount: 2, memTotal: 512 * 1024 * 1024 })]);
    await env.c.post(`/sandboxes/${id}/pause`);
    expect((await env.c.get(`/sandboxes/${id}/metrics`)).body).toEqual([]);
    expect((await env.c.get("/sandboxes/imissing/metrics")).status).toBe(404);
  });

  test("GET /sandboxes/{id}/metrics honours start and end (Unix seconds)", async () => {
    const id = (await env.c.post("/sandboxes", { templateID: "base" })).body.sandboxID;
    const now = Math.floor(Date.now() / 1000);
    const during = await env.c.get(`/sandboxes/${id}/metrics?start=${now - 3600}&end=${now + 60}`);
    expect(during.body).toHaveLength(1);
    expect(during.body[0].timestampUnix).toBeGreaterThanOrEqual(now - 1);
    // A range that ends before the sandbox started has no reading.
    expect((await env.c.get(`/sandboxes/${id}/metrics?start=${now - 7200}&end=${now - 3600}`)).body).toEqual([]);
    expect((await env.c.get(`/sandboxes/${id}/metrics?start=${now}&end=${now - 60}`)).body).toEqual({ code: 400, message: "Invalid time range for metrics" });
  });

  test("metrics needs sandbox_ids, at most 100", async () => {
    const none = await env.c.get("/sandboxes/metrics");
    expect(none.body).toEqual({ code: 400, message: 'validation error: parameter "sandbox_ids" in query has an error: value is required but missing' });
    const ids = Array.from({ length: 101 }, (_, i) => `i${i}`).join(",");
    const many = await env.c.get(`/sandboxes/metrics?sandbox_ids=${ids}`);
    expect(many.body).toEqual({ code: 400, message: "Too many sandboxes requested, maximum is 100" });
  });

  test("GET /sandboxes/{id}/logs returns lines and entries, filtered by start and limit", async () => {
    const id = (await env.c.post("/sandboxes", { templateID: "base" })).body.sandboxID;
    const res = await env.c.get(`/sandboxes/${id}/logs`);
    expect(res.status).toBe(200);
    expect(res.body.logEntries.map((e: { message: string }) => e.message)).toEqual(["Sandbox created", "envd 0.6.4 started"]);
    expect(res.body.logEntries[0]).toMatchObject({ level: "info", fields: { sandboxID: id, templateID: BASE_ID } });
    expect(JSON.parse(res.body.logs[0].line)).toMatchObject({ level: "info", msg: "Sandbox created" });
    expect((await env.c.get(`/sandboxes/${id}/logs?limit=1`)).body.logEntries).toHaveLength(1);
    expect((await env.c.get(`/sandboxes/${id}/logs?start=${Date.now() + 60_000}`)).body.logs).toEqual([]);
    expect((await env.c.get(`/sandboxes/${id}/logs?limit=-1`)).body.message).toBe('validation error: parameter "limit" in query has an error: number must be at least 0');
  });

  test("GET /v2/sandboxes/{id}/logs: cursor, direction, level, search", async () => {
    const id = (await env.c.post("/sandboxes", { templateID: "base" })).body.sandboxID;
    await env.c.post(`/sandboxes/${id}/pause`);
    const messages = async (query = "") => (await env.c.get(`/v2/sandboxes/${id}/logs${query}`)).body.logs.map((e: { message: string }) => e.message);
    expect(await messages()).toEqual(["Sandbox created", "envd 0.6.4 started", "Sandbox paused"]);
    expect(await messages("?direction=backward&limit=2")).toEqual(["Sandbox paused", "envd 0.6.4 started"]);
    expect(await messages("?search=envd")).toEqual(["envd 0.6.4 started"]);
    expect(await messages("?level=error")).toEqual([]);
    expect(await messages(`?cursor=${Date.now() + 60_000}`)).toEqual([]);
    expect((await env.c.get(`/v2/sandboxes/${id}/logs?limit=1001`)).status).toBe(400);
  });
});
