/**
 * The `Idempotency-Key` of POST /v2/sandboxes (docs/service.md#idempotent-creates): over raw HTTP,
 * then with E2B's official Python SDK (PyPI e2b 2.63.0, unmodified), which sends the key and repeats
 * a create on its own when the answer says `Should-Retry: true`.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Emulator } from "../../emulator";
import { client, readyTemplate, startEmulator, useEmulator, type Client, type Res } from "./platform-helpers";

const run = promisify(execFile);
const env = useEmulator();

const BAD_KEY = (length: number) =>
  `invalid Idempotency-Key header: it must be 1 to 255 characters, each a lowercase letter, a digit or a hyphen ([a-z0-9-]), got ${length} characters`;

/** POST /v2/sandboxes (or `path`) with the API key and, when given, an Idempotency-Key. */
async function create(emu: Emulator, body: unknown, key?: string, path = "/v2/sandboxes"): Promise<Res> {
  const headers: Record<string, string> = { "x-api-key": emu.apiKey, "content-type": "application/json" };
  if (key !== undefined) headers["idempotency-key"] = key;
  const res = await fetch(`${emu.apiUrl}${path}`, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text === "" ? undefined : JSON.parse(text), headers: res.headers };
}

/** IDs of the sandboxes the emulator holds with metadata `case=<tag>` (each test uses its own tag). */
async function sandboxesTagged(c: Client, tag: string): Promise<string[]> {
  const res = await c.get(`/v2/sandboxes?metadata=${encodeURIComponent(`case=${tag}`)}`);
  expect(res.status).toBe(200);
  return res.body.map((s: { sandboxID: string }) => s.sandboxID);
}

const bodyOf = (tag: string, extra: Record<string, unknown> = {}) => ({ templateID: "base", timeout: 120, metadata: { case: tag }, ...extra });

describe("POST /v2/sandboxes with an Idempotency-Key", () => {
  test("the same key and body twice: the first answer again, one sandbox", async () => {
    const first = await create(env.emu, bodyOf("same"), "k-same");
    const second = await create(env.emu, bodyOf("same"), "k-same");
    expect(first.status).toBe(201);
    expect(first.body.envdAccessToken).toMatch(/^[0-9a-f]{64}$/);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.body.sandboxID).toBe(first.body.sandboxID);
    expect(second.body.envdAccessToken).toBe(first.body.envdAccessToken);
    expect(await sandboxesTagged(env.c, "same")).toEqual([first.body.sandboxID]);
  });

  test("the body is compared as canonical JSON: the same fields in another order are the same request", async () => {
    const first = await create(env.emu, '{"templateID":"base","metadata":{"case":"order","b":"2","a":"1"},"timeout":120}', "k-order");
    const second = await create(env.emu, '{"timeout":120,"metadata":{"a":"1","b":"2","case":"order"},"templateID":"base"}', "k-order");
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.sandboxID).toBe(first.body.sandboxID);
    expect(await sandboxesTagged(env.c, "order")).toEqual([first.body.sandboxID]);
  });

  test("the same key with another body: 422 idempotency_request_mismatch, nothing made", async () => {
    const first = await create(env.emu, bodyOf("mismatch"), "k-mismatch");
    const other = await create(env.emu, bodyOf("mismatch", { timeout: 121 }), "k-mismatch");
    expect(first.status).toBe(201);
    expect(other.status).toBe(422);
    expect(other.body).toEqual({
      code: 422,
      message: "Idempotency-Key 'k-mismatch' was already used with a different request body; use a new key for a new request",
      error_code: "idempotency_request_mismatch",
    });
    expect(other.headers.get("should-retry")).toBeNull();
    expect(await sandboxesTagged(env.c, "mismatch")).toEqual([first.body.sandboxID]);
  });

  test.each([
    ["upper case", "K-1"],
    ["256 characters", "a".repeat(256)],
    ["empty", ""],
    ["an underscore", "k_1"],
  ])("a key with %s: 400 naming the header and its rule, nothing made", async (_name, key) => {
    const res = await create(env.emu, bodyOf("bad-key"), key);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: BAD_KEY(key.length) });
    expect(await sandboxesTagged(env.c, "bad-key")).toEqual([]);
  });

  test("a key of 255 characters is taken", async () => {
    const res = await create(env.emu, bodyOf("long-key"), "a".repeat(255));
    expect(res.status).toBe(201);
    expect(await sandboxesTagged(env.c, "long-key")).toEqual([res.body.sandboxID]);
  });

  test("a create refused with a 4xx is answered the same again, even once the request would pass", async () => {
    const body = bodyOf("refused", { templateID: "made-later" });
    const first = await create(env.emu, body, "k-refused");
    const notFound = { code: 404, message: "template 'made-later' not found" };
    expect(first.status).toBe(404);
    expect(first.body).toEqual(notFound);
    await readyTemplate(env.c, "made-later");
    const again = await create(env.emu, body, "k-refused");
    expect(again.status).toBe(404);
    expect(again.body).toEqual(notFound);
    // The same request under a new key does make a sandbox: the 404 above was the kept answer.
    const fresh = await create(env.emu, body, "k-refused-2");
    expect(fresh.status).toBe(201);
    expect(await sandboxesTagged(env.c, "refused")).toEqual([fresh.body.sandboxID]);
  });

  test("no key: two creates make two sandboxes", async () => {
    const a = await create(env.emu, bodyOf("no-key"));
    const b = await create(env.emu, bodyOf("no-key"));
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.sandboxID).not.toBe(a.body.sandboxID);
    expect((await sandboxesTagged(env.c, "no-key")).sort()).toEqual([a.body.sandboxID, b.body.sandboxID].sort());
  });

  test("the deprecated POST /sandboxes ignores the header, a bad one included", async () => {
    const a = await create(env.emu, bodyOf("v1"), "k-v1", "/sandboxes");
    const b = await create(env.emu, bodyOf("v1"), "k-v1", "/sandboxes");
    const bad = await create(env.emu, bodyOf("v1"), "NOT-A-KEY", "/sandboxes");
    expect([a.status, b.status, bad.status]).toEqual([201, 201, 201]);
    expect(new Set([a.body.sandboxID, b.body.sandboxID, bad.body.sandboxID]).size).toBe(3);
    expect((await sandboxesTagged(env.c, "v1")).length).toBe(3);
  });
});

describe("a key whose first create is still running", () => {
  let slow: Emulator;
  beforeAll(async () => {
    slow = await startEmulator({ latency: { createMs: 800 } });
  });
  afterAll(() => slow?.close());

  test("the second request is a 409 idempotency_in_progress with Should-Retry; once the first ends it gets its answer", async () => {
    const [a, b] = await Promise.all([create(slow, bodyOf("busy"), "k-busy"), create(slow, bodyOf("busy"), "k-busy")]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([201, 409]);
    const [made, busy] = a.status === 201 ? [a, b] : [b, a];
    expect(busy.body).toEqual({ code: 409, message: "a request with Idempotency-Key 'k-busy' is still in progress", error_code: "idempotency_in_progress" });
    expect(busy.headers.get("should-retry")).toBe("true");
    expect(busy.headers.get("retry-after")).toBe("1");
    const later = await create(slow, bodyOf("busy"), "k-busy");
    expect(later.status).toBe(201);
    expect(later.body).toEqual(made.body);
    expect(await sandboxesTagged(client(slow), "busy")).toEqual([made.body.sandboxID]);
  });

  test("another body while the first still runs is a mismatch, not in progress", async () => {
    const first = create(slow, bodyOf("busy-other"), "k-busy-other");
    await new Promise((r) => setTimeout(r, 200));
    const other = await create(slow, bodyOf("busy-other", { timeout: 60 }), "k-busy-other");
    expect(other.status).toBe(422);
    expect(other.body.error_code).toBe("idempotency_request_mismatch");
    expect((await first).status).toBe(201);
  });
});

/**
 * The official Python SDK, unmodified, in a venv of this file's own. It runs as a child process
 * (asynchronously: the emulator answers from this same process).
 */
describe("the official Python SDK (e2b 2.63.0)", () => {
  const SCRIPT = `
import asyncio, json, sys
from e2b import AsyncSandbox

async def main():
    mode, key, tag = sys.argv[1:4]
    create = lambda: AsyncSandbox.create("base", timeout=120, metadata={"case": tag}, idempotency_key=key)
    if mode == "sequential":
        a = await create()
        b = await create()
    else:
        a, b = await asyncio.gather(create(), create())
    print(json.dumps([a.sandbox_id, b.sandbox_id]))

asyncio.run(main())
`;
  let dir = "";
  let python = "";
  let slow: Emulator;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "idempotent-create-py-"));
    await run("python3", ["-m", "venv", join(dir, "venv")]);
    python = join(dir, "venv", "bin", "python");
    await run(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "e2b==2.63.0"], { timeout: 280_000 });
    writeFileSync(join(dir, "create.py"), SCRIPT);
    slow = await startEmulator({ latency: { createMs: 1500 } });
  }, 300_000);
  afterAll(async () => {
    await slow?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the script against `emu` with only its URLs and key among the E2B_ variables. */
  async function createTwice(emu: Emulator, mode: "sequential" | "concurrent", key: string, tag: string): Promise<string[]> {
    const childEnv: NodeJS.ProcessEnv = { ...process.env };
    for (const name of Object.keys(childEnv)) if (name.startsWith("E2B_")) delete childEnv[name];
    Object.assign(childEnv, { E2B_API_KEY: emu.apiKey, E2B_API_URL: emu.apiUrl, E2B_SANDBOX_URL: emu.sandboxUrl });
    const since = emu.calls().at(-1)?.seq ?? 0;
    const ids = (stdout: string): string[] | undefined => {
      try {
        return JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as string[];
      } catch {
        return undefined;
      }
    };
    try {
      const { stdout } = await run(python, [join(dir, "create.py"), mode, key, tag], { env: childEnv, timeout: 150_000 });
      return ids(stdout) ?? [];
    } catch (err) {
      // Loaded fresh-clone runs saw the script exit non-zero with nothing on stderr after the service had
      // answered both creates 201, which is what a kill at the old 60 s deadline looks like (a cold Python
      // importing the SDK on a loaded machine): the deadline is now 150 s, and printed IDs still count.
      const e = err as { stdout?: string; code?: unknown; signal?: unknown; message?: string };
      const printed = ids(e.stdout ?? "");
      if (printed) return printed;
      const answered = emu.calls(since).filter((c) => c.area === "platform").map((c) => `${c.method} ${c.path} ${c.status}`);
      throw new Error(`${e.message ?? String(err)} (exit ${String(e.code)}, signal ${String(e.signal)}, stdout ${JSON.stringify(e.stdout ?? "")})\nthe emulator answered: ${answered.join("; ") || "nothing"}`);
    }
  }

  test("AsyncSandbox.create(idempotency_key='k-1') twice with the same arguments: one sandbox", async () => {
    const ids = await createTwice(env.emu, "sequential", "k-1", "py-sequential");
    expect(ids).toHaveLength(2);
    expect(ids[0]).toMatch(/^i[a-z0-9]{20}$/);
    expect(ids[1]).toBe(ids[0]);
    expect(await sandboxesTagged(env.c, "py-sequential")).toEqual([ids[0]]);
  }, 180_000);

  test("two at once: the SDK waits out the 409 (Should-Retry, Retry-After) and gets the first one's sandbox", async () => {
    const since = slow.calls().at(-1)?.seq ?? 0;
    const ids = await createTwice(slow, "concurrent", "k-2", "py-concurrent");
    expect(ids[1]).toBe(ids[0]);
    expect(await sandboxesTagged(client(slow), "py-concurrent")).toEqual([ids[0]]);
    const creates = slow.calls(since).filter((c) => c.method === "POST" && c.path === "/v2/sandboxes").map((c) => c.status);
    expect(creates.filter((s) => s === 201)).toEqual([201, 201]);
    expect(creates.filter((s) => s === 409).length).toBeGreaterThanOrEqual(1);
    expect(creates.filter((s) => s !== 201 && s !== 409)).toEqual([]);
  }, 180_000);
});
