/**
 * The HTTP core against real local servers that misbehave on cue: retries, give-up messages,
 * unsafe creates never repeated, per-request timeouts, aborts, auth headers and error bodies.
 */
import { afterEach, describe, expect, test } from "vitest";
import { version } from "../../package.json";
import { PlatformClient } from "../../sdk/platform/client";
import type { ClientOptions } from "../../sdk/config";
import { failure } from "./expect-error";
import { closedPort, json, startPeer, type Peer, type PeerHandler } from "./http-peer";

const KEY = "e2b_0123456789abcdef";
const TOKEN = "sk_e2b_fedcba9876543210";
const SANDBOX = { templateID: "t1", sandboxID: "i1", clientID: "c", envdVersion: "0.2.0", envdAccessToken: null, domain: null };
const FAST = { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 };

const open: { peers: Peer[]; clients: PlatformClient[] } = { peers: [], clients: [] };
afterEach(async () => {
  await Promise.all(open.clients.splice(0).map((c) => c.close()));
  await Promise.all(open.peers.splice(0).map((p) => p.close()));
});

async function setup(handler: PeerHandler, options: ClientOptions = {}): Promise<{ peer: Peer; client: PlatformClient }> {
  const peer = await startPeer(handler);
  const client = new PlatformClient({ apiKey: KEY, apiUrl: peer.url, retry: FAST, ...options }, {});
  open.peers.push(peer);
  open.clients.push(client);
  return { peer, client };
}

describe("retries", () => {
  test("429 with Retry-After is retried for a create, after the advertised pause", async () => {
    const { peer, client } = await setup(
      (_req, res, n) => (n === 1 ? json(res, 429, { code: 429, message: "Rate limit exceeded" }, { "retry-after": "1" }) : json(res, 201, SANDBOX)),
      { retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 5_000 } },
    );
    const started = performance.now();
    const sbx = await client.sandboxes.create({ templateID: "base" });
    expect(sbx.sandboxID).toBe("i1");
    expect(peer.requests.map((r) => r.method)).toEqual(["POST", "POST"]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
  });

  test("a Retry-After beyond maxDelayMs is capped", async () => {
    const { peer, client } = await setup((_req, res, n) =>
      n === 1 ? json(res, 429, { code: 429, message: "slow down" }, { "retry-after": "3600" }) : json(res, 200, []),
    );
    await expect(client.volumes.list()).resolves.toEqual([]);
    expect(peer.requests).toHaveLength(2);
  });

  test("503 on a GET is retried until it succeeds", async () => {
    const { peer, client } = await setup((_req, res, n) => (n < 3 ? json(res, 503, { code: 503, message: "busy" }) : json(res, 200, [])));
    await expect(client.templates.list()).resolves.toEqual([]);
    expect(peer.requests).toHaveLength(3);
  });

  test("gives up after its budget, saying how many attempts and the last cause", async () => {
    const { peer, client } = await setup((_req, res) => json(res, 503, { code: 503, message: "no capacity, please retry" }));
    const err = await failure(client.sandboxes.get("i1"));
    expect(err.code).toBe("unavailable");
    expect(err.status).toBe(503);
    expect(err.retryable).toBe(true);
    expect(err.service).toEqual({ code: 503, message: "no capacity, please retry" });
    expect(err.message).toBe("GET /sandboxes/{id} failed (503 unavailable): no capacity, please retry (gave up after 3 attempts)");
    expect(peer.requests).toHaveLength(3);
  });

  test("the concurrent-sandbox limit's 429 is not repeated: it lasts until other sandboxes end, so the caller decides", async () => {
    const message = "you have reached the maximum number of concurrent E2B sandboxes (20). If you need more, please visit 'https://e2b.dev/docs/billing'";
    const { peer, client } = await setup((_req, res) => json(res, 429, { code: 429, message }, { "retry-after": "2" }));
    const err = await failure(client.sandboxes.create({ templateID: "base" }));
    expect(err.reason).toBe("sandbox_limit");
    expect(err.retryAfterMs).toBe(2_000);
    expect(err.message).toBe(`POST /v2/sandboxes failed (429 rate_limited): ${message}`);
    expect(peer.requests).toHaveLength(1);
  });

  test("503 on a create is not repeated (the service may have started it)", async () => {
    const { peer, client } = await setup((_req, res) => json(res, 503, { code: 503, message: "placement failed" }));
    const err = await failure(client.sandboxes.create({ templateID: "base" }));
    expect(err.message).toBe("POST /v2/sandboxes failed (503 unavailable): placement failed");
    expect(peer.requests).toHaveLength(1);
  });

  test("a create whose connection drops after the request was sent is NOT repeated", async () => {
    const { peer, client } = await setup((_req, res) => res.socket?.destroy());
    const err = await failure(client.sandboxes.create({ templateID: "base" }));
    expect(err.code).toBe("unavailable");
    expect(err.message).toMatch(
      /^POST \/v2\/sandboxes failed: the connection to 127\.0\.0\.1:\d+ was lost before a response \((UND_ERR_SOCKET|ECONNRESET)\); not repeated, because the service may have processed it$/,
    );
    expect(peer.requests).toHaveLength(1);
  });

  test("a volume create is not repeated either; a template rebuild neither", async () => {
    const { peer, client } = await setup((_req, res) => res.socket?.destroy(), { accessToken: TOKEN });
    await failure(client.volumes.create({ name: "v" }));
    await failure(client.templates.rebuild("t1", { dockerfile: "FROM x" }));
    expect(peer.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["POST /volumes", "POST /templates/t1"]);
  });

  test("a GET whose connection drops is repeated", async () => {
    const { peer, client } = await setup((_req, res, n) => (n === 1 ? res.socket?.destroy() : json(res, 200, [])));
    await expect(client.volumes.list()).resolves.toEqual([]);
    expect(peer.requests).toHaveLength(2);
  });

  test("pause and setTimeout are declared idempotent: a dropped connection is repeated", async () => {
    const { peer, client } = await setup((_req, res, n) => (n % 2 === 1 ? res.socket?.destroy() : res.writeHead(204).end()));
    await client.sandboxes.pause("i1");
    await client.sandboxes.setTimeout("i1", 30);
    expect(peer.requests.map((r) => r.url)).toEqual(["/sandboxes/i1/pause", "/sandboxes/i1/pause", "/sandboxes/i1/timeout", "/sandboxes/i1/timeout"]);
    expect(JSON.parse(peer.requests[3]!.body)).toEqual({ timeout: 30 });
  });

  test("a refused connection is retried even for a create (nothing was sent), then reported", async () => {
    const port = await closedPort();
    const client = new PlatformClient({ apiKey: KEY, apiUrl: `http://127.0.0.1:${port}`, retry: FAST }, {});
    open.clients.push(client);
    const err = await failure(client.sandboxes.create({ templateID: "base" }));
    expect(err.code).toBe("unavailable");
    expect(err.message).toBe(`POST /v2/sandboxes failed: could not connect to 127.0.0.1:${port} (ECONNREFUSED) (gave up after 3 attempts)`);
  });

  test("a 400 is not retried and carries the service's message", async () => {
    const { peer, client } = await setup((_req, res) => json(res, 400, { code: 400, message: "Timeout must be greater than 0" }));
    const err = await failure(client.sandboxes.create({ templateID: "base", timeout: 0 }));
    expect(err.code).toBe("invalid_argument");
    expect(err.status).toBe(400);
    expect(err.retryable).toBe(false);
    expect(err.message).toBe("POST /v2/sandboxes failed (400 invalid_argument): Timeout must be greater than 0");
    expect(peer.requests).toHaveLength(1);
  });

  test("a retried call that ends in a different error says how many attempts it took", async () => {
    const { client } = await setup((_req, res, n) => (n === 1 ? json(res, 502, { code: 502, message: "bad gateway" }) : json(res, 404, { code: 404, message: "Volume not found" })));
    const err = await failure(client.volumes.get("v1"));
    expect(err.message).toBe("GET /volumes/{id} failed (404 not_found): Volume not found (after 2 attempts)");
  });

  test("a non-JSON error body is quoted, trimmed to one line", async () => {
    const { client } = await setup((_req, res) => res.writeHead(500, { "content-type": "text/html" }).end("<h1>Internal\n  Error</h1>"));
    const err = await failure(client.volumes.list());
    expect(err.message).toBe("GET /volumes failed (500 internal): <h1>Internal Error</h1>");
    expect(err.service).toBeUndefined();
  });
});

describe("deadlines and aborts", () => {
  const hang: PeerHandler = () => undefined;

  test("per-request timeout → code timeout; a GET is repeated once, a create never", async () => {
    const { peer, client } = await setup(hang, { requestTimeoutMs: 150 });
    const started = performance.now();
    const err = await failure(client.sandboxes.get("i1"));
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(err.code).toBe("timeout");
    expect(err.message).toBe(
      "GET /sandboxes/{id} timed out after 150 ms without a complete response (gave up after 2 attempts). If the service is slow, raise " +
        "requestTimeoutMs: `pulumi config set sandbox:requestTimeoutMs <ms>` in a Pulumi stack, else the PULUMI_SANDBOX_REQUEST_TIMEOUT_MS " +
        "environment variable or the client's requestTimeoutMs option.",
    );
    expect(peer.requests.map((r) => r.method)).toEqual(["GET", "GET"]);
    expect((await failure(client.sandboxes.create({ templateID: "base" }))).code).toBe("timeout");
    expect(peer.requests.map((r) => r.method)).toEqual(["GET", "GET", "POST"]);
  });

  test("the call's timeoutMs overrides requestTimeoutMs", async () => {
    const { client } = await setup(hang, { requestTimeoutMs: 60_000 });
    const err = await failure(client.volumes.list({ timeoutMs: 100 }));
    expect(err.code).toBe("timeout");
    expect(err.message).toContain("timed out after 100 ms");
    expect(err.message).toContain("Raise the call's timeoutMs if the service is slow.");
  });

  test("a body that stalls after the headers also times out", async () => {
    const { client } = await setup((_req, res) => res.writeHead(200, { "content-type": "application/json" }).write("[", () => undefined), { requestTimeoutMs: 150 });
    expect((await failure(client.volumes.list())).code).toBe("timeout");
  });

  test("abort in flight → code aborted, at once", async () => {
    const { client } = await setup(hang);
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 50);
    const err = await failure(client.sandboxes.get("i1", { signal: ctl.signal }));
    expect(err.code).toBe("aborted");
    expect(err.message).toBe("GET /sandboxes/{id}: aborted by the caller.");
  });

  test("abort during a backoff pause stops the retries immediately", async () => {
    const ctl = new AbortController();
    const { peer, client } = await setup(
      (_req, res) => {
        json(res, 503, { code: 503, message: "busy" });
        setTimeout(() => ctl.abort(new Error("deploy cancelled")), 50);
      },
      { retry: { maxAttempts: 5, baseDelayMs: 30_000, maxDelayMs: 30_000 } },
    );
    const started = performance.now();
    // Retry-After-free 503 with a 30 s base: the first pause is 0–30 s; fix the draw high.
    const random = Math.random;
    Math.random = () => 0.99;
    try {
      const err = await failure(client.templates.list({ signal: ctl.signal }));
      expect(err.code).toBe("aborted");
      expect(err.message).toBe("GET /templates: aborted by the caller (deploy cancelled).");
    } finally {
      Math.random = random;
    }
    expect(peer.requests).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  test("an already-aborted signal sends nothing", async () => {
    const { peer, client } = await setup(hang);
    const err = await failure(client.volumes.list({ signal: AbortSignal.abort() }));
    expect(err.code).toBe("aborted");
    expect(peer.requests).toHaveLength(0);
  });
});

describe("auth and headers", () => {
  const ok: PeerHandler = (req, res) => (req.method === "PATCH" ? json(res, 200, { names: ["team/x"] }) : json(res, 200, []));

  test("API-key operations send X-API-Key and our own User-Agent", async () => {
    const { peer, client } = await setup(ok);
    await client.volumes.list();
    const h = peer.requests[0]!.headers;
    expect(h["x-api-key"]).toBe(KEY);
    expect(h.authorization).toBeUndefined();
    expect(h["user-agent"]).toBe(`pulumi-sandbox/${version}`);
  });

  test("setPublic uses the API key when there is one, else the access token", async () => {
    const both = await setup(ok, { accessToken: TOKEN });
    await expect(both.client.templates.setPublic("t1", true)).resolves.toEqual({ names: ["team/x"] });
    expect(both.peer.requests[0]!.headers["x-api-key"]).toBe(KEY);
    const tokenOnly = await setup(ok, { apiKey: undefined, accessToken: TOKEN });
    await tokenOnly.client.templates.setPublic("t1", false);
    const req = tokenOnly.peer.requests[0]!;
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers["x-api-key"]).toBeUndefined();
    expect(`${req.method} ${req.url} ${req.body}`).toBe('PATCH /v2/templates/t1 {"public":false}');
  });

  test("a missing API key fails before any request, saying where to set it", async () => {
    const { peer, client } = await setup(ok, { apiKey: undefined });
    const err = await failure(client.sandboxes.create({ templateID: "base" }));
    expect(err.code).toBe("missing_credential");
    expect(err.message).toMatch(/^POST \/v2\/sandboxes: No API key is configured\. Set the E2B_API_KEY environment variable/);
    expect(peer.requests).toHaveLength(0);
  });

  test("a rebuild without an access token fails before any request", async () => {
    const { peer, client } = await setup(ok);
    const err = await failure(client.templates.rebuild("t1", { dockerfile: "FROM x" }));
    expect(err.code).toBe("missing_credential");
    expect(err.message).toContain("POST /templates/{id}: This operation needs an access token");
    expect(err.message).toContain("E2B_ACCESS_TOKEN");
    expect(peer.requests).toHaveLength(0);
  });

  test("a credential echoed by the service never reaches the message", async () => {
    const { client } = await setup((req, res) => json(res, 401, { code: 401, message: `Invalid API key ${String(req.headers["x-api-key"])}` }));
    const err = await failure(client.volumes.list());
    expect(err.code).toBe("unauthenticated");
    expect(err.message).toBe("GET /volumes failed (401 unauthenticated): Invalid API key [redacted]");
    expect(err.service?.message).not.toContain(KEY);
  });

  test("path parameters are encoded, and an empty ID is refused locally", async () => {
    const { peer, client } = await setup((_req, res) => res.writeHead(204).end());
    await client.sandboxes.kill("a/b c");
    expect(peer.requests[0]!.url).toBe("/sandboxes/a%2Fb%20c");
    const err = await failure(client.sandboxes.kill(""));
    expect(err.code).toBe("invalid_argument");
    expect(err.message).toBe('DELETE /sandboxes/{id}: `id` must be a non-empty string, got "".');
    expect(peer.requests).toHaveLength(1);
  });

  test("an apiUrl with a path prefix keeps it", async () => {
    const peer = await startPeer((_req, res) => json(res, 200, []));
    open.peers.push(peer);
    const client = new PlatformClient({ apiKey: KEY, apiUrl: `${peer.url}/api/` }, {});
    open.clients.push(client);
    await client.volumes.list();
    expect(peer.requests[0]!.url).toBe("/api/volumes");
  });
});

describe("response shapes", () => {
  test("a field of the wrong type is invalid_response naming the operation and field", async () => {
    const detail = { ...SANDBOX, startedAt: "2025-01-01T00:00:00Z", endAt: 5, cpuCount: 2, memoryMB: 512, diskSizeMB: 0, state: "running" };
    const { client } = await setup((_req, res) => json(res, 200, detail));
    const err = await failure(client.sandboxes.get("i1"));
    expect(err.code).toBe("invalid_response");
    expect(err.message).toBe(
      "GET /sandboxes/{id}: response field `endAt`: expected string, got number. The service answered with a shape this client does not understand.",
    );
  });

  test("a 2xx body that is not JSON is invalid_response", async () => {
    const { client } = await setup((_req, res) => res.writeHead(200).end("<html>hello</html>"));
    const err = await failure(client.volumes.list());
    expect(err.code).toBe("invalid_response");
    expect(err.message).toBe("GET /volumes: the response body is not JSON: <html>hello</html>");
  });

  test("unknown extra fields are accepted and dropped", async () => {
    const { client } = await setup((_req, res) => json(res, 201, { ...SANDBOX, brandNew: { x: 1 } }));
    expect(await client.sandboxes.create({ templateID: "base" })).toEqual(SANDBOX);
  });
});

test("close() releases the pool; a second client keeps working", async () => {
  const peer = await startPeer((_req, res) => json(res, 200, []));
  open.peers.push(peer);
  const a = new PlatformClient({ apiKey: KEY, apiUrl: peer.url }, {});
  const b = new PlatformClient({ apiKey: KEY, apiUrl: peer.url }, {});
  open.clients.push(b);
  await a.volumes.list();
  await a.close();
  await expect(b.volumes.list()).resolves.toEqual([]);
  expect(peer.requests).toHaveLength(2);
});
