/**
 * The lifecycle events API and webhook management (docs/service.md#lifecycle-events-and-webhooks):
 * events of every sandbox and of one, with `types`, `orderAsc`, `offset` and `limit`, through the
 * sdk; webhook create, list, get, update and delete, never showing the secret; and the status and
 * error body of each bad request (unknown event, bad URL, missing field, unknown ID, bad query).
 */
import { beforeAll, describe, expect, test } from "vitest";
import { PlatformClient, type NewWebhook, type SandboxLifecycleEvent } from "../../sdk";
import { useEmulator } from "./platform-helpers";

const env = useEmulator();
let sdk: PlatformClient;
let first = "";
let second = "";
const ALLOWED = `["sandbox.lifecycle.created","sandbox.lifecycle.updated","sandbox.lifecycle.killed","sandbox.lifecycle.paused","sandbox.lifecycle.resumed","sandbox.lifecycle.checkpointed"]`;
const NEW_HOOK: NewWebhook = { name: "audit", url: "https://hooks.example.test/e2b", events: ["sandbox.lifecycle.created"], signatureSecret: "s3cret-never-shown" };
const types = (events: SandboxLifecycleEvent[]) => events.map((e) => `${e.sandboxId === first ? "first" : "second"} ${e.type.slice(18)}`);

beforeAll(async () => {
  sdk = new PlatformClient({ apiUrl: env.emu.apiUrl, apiKey: env.emu.apiKey }, {});
  first = (await sdk.sandboxes.create({ templateID: "base" })).sandboxID;
  second = (await sdk.sandboxes.create({ templateID: "base" })).sandboxID;
  await sdk.sandboxes.pause(first);
  await sdk.sandboxes.connect(first, { timeout: 60 });
  await sdk.sandboxes.kill(first);
  return () => sdk.close();
});

describe("GET /events/sandboxes", () => {
  test("every sandbox's events, newest first by default, oldest first with orderAsc", async () => {
    const asc = ["first created", "second created", "first paused", "first resumed", "first killed"];
    expect(types(await sdk.events.list({ orderAsc: true }))).toEqual(asc);
    expect(types(await sdk.events.list())).toEqual([...asc].reverse());
  });

  test("types (any of them), offset and limit", async () => {
    expect(types(await sdk.events.list({ types: ["sandbox.lifecycle.created", "sandbox.lifecycle.killed"], orderAsc: true }))).toEqual(["first created", "second created", "first killed"]);
    expect(types(await sdk.events.list({ orderAsc: true, offset: 1, limit: 2 }))).toEqual(["second created", "first paused"]);
    expect(await sdk.events.list({ offset: 5 })).toEqual([]);
  });

  test("one sandbox's events, kept after it was killed; a sandbox with none lists none", async () => {
    expect(types(await sdk.events.listForSandbox(first, { orderAsc: true }))).toEqual(["first created", "first paused", "first resumed", "first killed"]);
    expect(types(await sdk.events.listForSandbox(first, { types: ["sandbox.lifecycle.paused"] }))).toEqual(["first paused"]);
    expect(types(await sdk.events.listForSandbox(second))).toEqual(["second created"]);
    expect(await sdk.events.listForSandbox("i0000000000000000000none")).toEqual([]);
  });

  test("the limit's default is 10 and its maximum 100; bad parameters are the validator's 400", async () => {
    const cases: [string, string][] = [
      ["limit=0", `parameter "limit" in query has an error: number must be at least 1`],
      ["limit=101", `parameter "limit" in query has an error: number must be at most 100`],
      ["offset=-1", `parameter "offset" in query has an error: number must be at least 0`],
      ["orderAsc=yes", `parameter "orderAsc" in query has an error: value must be a boolean`],
      ["types=sandbox.lifecycle.exploded", `parameter "types" in query has an error: value is not one of the allowed values ${ALLOWED}`],
    ];
    for (const [query, message] of cases) {
      const res = await env.c.get(`/events/sandboxes?${query}`);
      expect({ query, status: res.status, body: res.body }).toEqual({ query, status: 400, body: { code: 400, message: `validation error: ${message}` } });
    }
    expect((await env.c.get("/events/sandboxes/NOT-AN-ID")).body).toEqual({ code: 400, message: "Invalid sandbox ID" });
    expect((await env.c.get("/events/sandboxes", "none")).status).toBe(401);
  });
});

describe("webhooks", () => {
  const VIEW = { id: expect.stringMatching(/^[0-9a-f-]{36}$/), teamID: expect.any(String), createdAt: expect.stringMatching(/Z$/), enabled: true };

  test("create 201, get, list, update 200 (only the fields sent), delete; no answer holds the secret", async () => {
    const made = await sdk.webhooks.create(NEW_HOOK);
    expect(made).toEqual({ ...VIEW, name: "audit", url: NEW_HOOK.url, events: NEW_HOOK.events });
    expect(await sdk.webhooks.get(made.id)).toEqual(made);
    expect((await sdk.webhooks.list()).map((w) => w.id)).toContain(made.id);
    const updated = await sdk.webhooks.update(made.id, { enabled: false, events: ["sandbox.lifecycle.killed", "sandbox.lifecycle.paused"], signatureSecret: "rotated" });
    expect(updated).toEqual({ ...made, enabled: false, events: ["sandbox.lifecycle.killed", "sandbox.lifecycle.paused"] });
    const raw = [await env.c.get(`/events/webhooks/${made.id}`), await env.c.get("/events/webhooks"), await env.c.patch(`/events/webhooks/${made.id}`, { name: "renamed" })];
    expect(raw.map((r) => r.status)).toEqual([200, 200, 200]);
    for (const r of raw) expect(JSON.stringify(r.body)).not.toMatch(/s3cret|rotated|signatureSecret/);
    expect((await env.c.del(`/events/webhooks/${made.id}`)).status).toBe(204);
    await expect(sdk.webhooks.get(made.id)).rejects.toMatchObject({ code: "not_found" });
  });

  test("bad bodies: unknown or repeated event, no events, bad URL, missing field: 400 with the reason", async () => {
    const at = (path: string, rest: string) => `validation error: request body has an error: Error at "${path}": ${rest}`;
    const cases: [object, string][] = [
      [{ ...NEW_HOOK, events: ["sandbox.lifecycle.exploded"] }, at("/events/0", `value is not one of the allowed values ${ALLOWED}`)],
      [{ ...NEW_HOOK, events: ["sandbox.lifecycle.killed", "sandbox.lifecycle.killed"] }, at("/events", "duplicate items found")],
      [{ ...NEW_HOOK, events: [] }, at("/events", "minimum number of items is 1")],
      [{ ...NEW_HOOK, signatureSecret: undefined }, at("/signatureSecret", `property "signatureSecret" is missing`)],
      [{ ...NEW_HOOK, name: "" }, at("/name", "minimum string length is 1")],
      [{ ...NEW_HOOK, url: "ftp://hooks.example.test/x" }, "Invalid webhook URL: it must be an absolute http:// or https:// URL"],
      [{ ...NEW_HOOK, url: "not a url" }, "Invalid webhook URL: it must be an absolute http:// or https:// URL"],
    ];
    for (const [body, message] of cases) {
      const res = await env.c.post("/events/webhooks", body);
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { code: 400, message } });
    }
    await expect(sdk.webhooks.create({ ...NEW_HOOK, url: "mailto:x@example.test" })).rejects.toMatchObject({ code: "invalid_argument" });
    const made = await sdk.webhooks.create(NEW_HOOK);
    const patch = await env.c.patch(`/events/webhooks/${made.id}`, { events: ["sandbox.lifecycle.nope"] });
    expect(patch.status).toBe(400);
    expect((await sdk.webhooks.get(made.id)).events).toEqual(NEW_HOOK.events);
  });

  test("an unknown webhook ID is 404 on get, update and delete; no API key is 401", async () => {
    const NOT_FOUND = { status: 404, body: { code: 404, message: "Webhook not found" } };
    const id = "00000000-0000-4000-8000-000000000000";
    for (const res of [await env.c.get(`/events/webhooks/${id}`), await env.c.patch(`/events/webhooks/${id}`, { name: "x" }), await env.c.del(`/events/webhooks/${id}`)]) {
      expect({ status: res.status, body: res.body }).toEqual(NOT_FOUND);
    }
    expect((await env.c.post("/events/webhooks", NEW_HOOK, "none")).status).toBe(401);
  });
});
