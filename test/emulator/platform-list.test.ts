import { beforeAll, describe, expect, test } from "vitest";
import { readyTemplate, useEmulator } from "./platform-helpers";

const env = useEmulator();
/** Created in this order: a0..a4 with metadata team=a|b, env=dev|prod; a1 and a3 paused. */
const ids: string[] = [];
let customTemplate: string;
let customSandbox: string;

beforeAll(async () => {
  const c = env.c;
  for (let i = 0; i < 5; i++) {
    const metadata = { team: i % 2 === 0 ? "a" : "b", env: i < 3 ? "dev" : "prod", n: String(i) };
    const res = await c.post("/sandboxes", { templateID: "base", timeout: 600, metadata });
    ids.push(res.body.sandboxID);
    // Distinct start times, so the expected order does not hang on ID tie-breaks.
    await new Promise((r) => setTimeout(r, 3));
  }
  await c.post(`/sandboxes/${ids[1]}/pause`);
  await c.post(`/sandboxes/${ids[3]}/pause`);
  customTemplate = await readyTemplate(c, "listed");
  customSandbox = (await c.post("/sandboxes", { templateID: "listed", timeout: 600 })).body.sandboxID;
});

const idsOf = (body: { sandboxID: string }[]) => body.map((s) => s.sandboxID);

describe("GET /v2/sandboxes", () => {
  test("lists running and paused, newest first, with X-Total-Running", async () => {
    const res = await env.c.get("/v2/sandboxes");
    expect(res.status).toBe(200);
    expect(idsOf(res.body)).toEqual([customSandbox, ...[...ids].reverse()]);
    expect(res.headers.get("x-total-running")).toBe("4");
    expect(res.headers.get("x-next-token")).toBeNull();
    expect(res.body.find((s: { sandboxID: string }) => s.sandboxID === ids[1]).state).toBe("paused");
    expect(res.body[1]).toMatchObject({ metadata: { team: "a", env: "prod", n: "4" }, cpuCount: 2, memoryMB: 512, volumeMounts: [] });
  });

  test("order=asc", async () => {
    expect(idsOf((await env.c.get("/v2/sandboxes?order=asc")).body)).toEqual([...ids, customSandbox]);
  });

  test("pages of `limit` chained by X-Next-Token cover everything once", async () => {
    const seen: string[] = [];
    let token: string | null = null;
    let pages = 0;
    do {
      const res = await env.c.get(`/v2/sandboxes?limit=2${token ? `&nextToken=${encodeURIComponent(token)}` : ""}`);
      expect(res.body.length).toBeLessThanOrEqual(2);
      seen.push(...idsOf(res.body));
      token = res.headers.get("x-next-token");
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(seen).toEqual([customSandbox, ...[...ids].reverse()]);
  });

  test("state filter", async () => {
    expect(idsOf((await env.c.get("/v2/sandboxes?state=paused&order=asc")).body)).toEqual([ids[1], ids[3]]);
    expect(idsOf((await env.c.get("/v2/sandboxes?state=running&order=asc")).body)).toEqual([ids[0], ids[2], ids[4], customSandbox]);
    expect((await env.c.get("/v2/sandboxes?state=running,paused")).body).toHaveLength(6);
  });

  test("metadata filter: one URL-encoded k=v&k2=v2 parameter, every pair must match", async () => {
    const q = encodeURIComponent("team=a&env=dev");
    expect(idsOf((await env.c.get(`/v2/sandboxes?order=asc&metadata=${q}`)).body)).toEqual([ids[0], ids[2]]);
    const paused = encodeURIComponent("team=b");
    expect(idsOf((await env.c.get(`/v2/sandboxes?order=asc&state=paused&metadata=${paused}`)).body)).toEqual([ids[1], ids[3]]);
    expect((await env.c.get(`/v2/sandboxes?metadata=${encodeURIComponent("team=zzz")}`)).body).toEqual([]);
  });

  test("template filter takes an ID or an alias", async () => {
    expect(idsOf((await env.c.get("/v2/sandboxes?template=listed")).body)).toEqual([customSandbox]);
    expect(idsOf((await env.c.get(`/v2/sandboxes?template=${customTemplate}`)).body)).toEqual([customSandbox]);
    expect((await env.c.get("/v2/sandboxes?template=unknown")).body).toEqual([]);
  });

  test("X-Total-Running counts the running sandboxes the filters match, and only when running ones are asked for", async () => {
    const q = encodeURIComponent("team=a");
    expect((await env.c.get(`/v2/sandboxes?metadata=${q}`)).headers.get("x-total-running")).toBe("3");
    expect((await env.c.get("/v2/sandboxes?template=listed")).headers.get("x-total-running")).toBe("1");
    expect((await env.c.get("/v2/sandboxes?limit=1")).headers.get("x-total-running")).toBe("4");
    expect((await env.c.get("/v2/sandboxes?state=paused")).headers.get("x-total-running")).toBeNull();
  });

  test("startedAfter includes a sandbox started at that very instant", async () => {
    const started = (await env.c.get(`/sandboxes/${ids[2]}`)).body.startedAt as string;
    const res = await env.c.get(`/v2/sandboxes?order=asc&startedAfter=${encodeURIComponent(started)}`);
    expect(idsOf(res.body)).toEqual([ids[2], ids[3], ids[4], customSandbox]);
  });

  test.each([
    ["limit=0", 'validation error: parameter "limit" in query has an error: number must be at least 1'],
    ["limit=101", 'validation error: parameter "limit" in query has an error: number must be at most 100'],
    ["limit=ten", 'validation error: parameter "limit" in query has an error: value must be an integer'],
    ["state=stopped", 'validation error: parameter "state" in query has an error: value is not one of the allowed values ["running","paused"]'],
    ["order=up", 'validation error: parameter "order" in query has an error: value is not one of the allowed values ["asc","desc"]'],
    ["nextToken=garbage", "Invalid next token"],
    [`metadata=${encodeURIComponent("=x")}`, "Error when parsing metadata: '=x' is not of the form key=value&key2=value2"],
  ])("%s → 400", async (query, message) => {
    const res = await env.c.get(`/v2/sandboxes?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message });
  });
});

describe("GET /sandboxes (deprecated)", () => {
  test("running sandboxes only, newest first, with the metadata filter", async () => {
    const all = await env.c.get("/sandboxes");
    expect(all.status).toBe(200);
    expect(idsOf(all.body)).toEqual([customSandbox, ids[4], ids[2], ids[0]]);
    const q = encodeURIComponent("env=prod");
    expect(idsOf((await env.c.get(`/sandboxes?metadata=${q}`)).body)).toEqual([ids[4]]);
  });
});
