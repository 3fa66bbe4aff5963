/**
 * Team secrets in the emulator, over plain HTTP (docs/service.md#secrets): create, list, get by ID or
 * name, update (a new version), delete; the fixed message of each failure; no answer carrying the
 * value; every answer marked no-store.
 */
import { describe, expect, test } from "vitest";
import { useEmulator } from "./platform-helpers";

const env = useEmulator();
const VALUE = "v-4f1d-never-shown";
const INVALID = { code: 400, message: "Invalid secrets request" };
const NOT_FOUND = { code: 404, message: "Secret not found" };
const SECRET = {
  secretID: expect.stringMatching(/^sec_[0-7][0-9a-hjkmnp-tv-z]{25}$/),
  currentVersion: 1,
  metadata: {},
  createdAt: expect.stringMatching(/Z$/),
  updatedAt: expect.stringMatching(/Z$/),
};

describe("secret CRUD", () => {
  test("POST /secrets → 201 with metadata only; the name comes back lower-cased", async () => {
    const res = await env.c.post("/secrets", { name: "Api_Token-1", value: VALUE, metadata: { owner: "ci" } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ ...SECRET, name: "api_token-1", metadata: { owner: "ci" } });
    expect(JSON.stringify(res.body)).not.toContain(VALUE);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  test("GET /secrets/{secretID} finds it by ID and by name in any case", async () => {
    const { body: made } = await env.c.post("/secrets", { name: "by-either", value: VALUE });
    const byID = await env.c.get(`/secrets/${made.secretID}`);
    expect(byID.status).toBe(200);
    expect(byID.body).toEqual(made);
    expect((await env.c.get(`/secrets/${made.secretID.toUpperCase()}`)).body).toEqual(made);
    expect((await env.c.get("/secrets/BY-Either")).body).toEqual(made);
  });

  test("POST /secrets/{secretID} appends a version: 200, currentVersion 2, metadata kept unless given", async () => {
    const { body: made } = await env.c.post("/secrets", { name: "rotated", value: VALUE, metadata: { a: "1" } });
    const kept = await env.c.post(`/secrets/${made.secretID}`, { value: `${VALUE}-2` });
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ secretID: made.secretID, currentVersion: 2, metadata: { a: "1" }, createdAt: made.createdAt });
    const replaced = await env.c.post("/secrets/rotated", { value: `${VALUE}-3`, metadata: {} });
    expect(replaced.body).toMatchObject({ currentVersion: 3, metadata: {} });
    expect(JSON.stringify([kept.body, replaced.body])).not.toContain(VALUE);
  });

  test("DELETE → 204, then 404 for every call on it, and the name is free again", async () => {
    const { body: made } = await env.c.post("/secrets", { name: "short-lived", value: VALUE });
    const res = await env.c.del(`/secrets/${made.secretID}`);
    expect(res.status).toBe(204);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect((await env.c.get(`/secrets/${made.secretID}`)).body).toEqual(NOT_FOUND);
    expect((await env.c.post(`/secrets/${made.secretID}`, { value: "x" })).body).toEqual(NOT_FOUND);
    expect((await env.c.del("/secrets/short-lived")).body).toEqual(NOT_FOUND);
    expect((await env.c.post("/secrets", { name: "short-lived", value: VALUE })).status).toBe(201);
  });

  test("GET /secrets lists them oldest first, paged with X-Next-Token, never with a value", async () => {
    for (const name of ["page-a", "page-b", "page-c"]) await env.c.post("/secrets", { name, value: VALUE });
    const all = await env.c.get("/secrets");
    expect(all.status).toBe(200);
    const names: string[] = all.body.map((s: { name: string }) => s.name);
    expect(names.indexOf("page-a")).toBeLessThan(names.indexOf("page-c"));
    expect(JSON.stringify(all.body)).not.toContain(VALUE);
    const first = await env.c.get("/secrets?limit=1");
    expect(first.body).toHaveLength(1);
    const second = await env.c.get(`/secrets?limit=1&nextToken=${first.headers.get("x-next-token")}`);
    expect(second.body[0].secretID).not.toBe(first.body[0].secretID);
  });
});

describe("failures answer one fixed text, with nothing of the request", () => {
  test("a taken name (any case) → 409", async () => {
    await env.c.post("/secrets", { name: "taken", value: VALUE });
    const res = await env.c.post("/secrets", { name: "TAKEN", value: VALUE });
    expect(res.body).toEqual({ code: 409, message: "Secret cannot be modified in its current state" });
  });

  test.each([
    ["a space in the name", { name: "bad name", value: VALUE }],
    ["the reserved sec_ prefix", { name: "Sec_mine", value: VALUE }],
    ["a name over 128 characters", { name: "n".repeat(129), value: VALUE }],
    ["no value", { name: "no-value" }],
    ["a value that is not a string", { name: "numeric", value: 7 }],
    ["33 metadata entries", { name: "meta", value: VALUE, metadata: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, "v"])) }],
    ["a metadata value over 1024 bytes", { name: "meta", value: VALUE, metadata: { k: "é".repeat(513) } }],
  ])("create with %s → 400", async (_label, body) => {
    const res = await env.c.post("/secrets", body);
    expect(res.body).toEqual(INVALID);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  test("a malformed sec_ ID is never read as a name → 400; an unknown one → 404", async () => {
    expect((await env.c.get("/secrets/sec_short")).body).toEqual(INVALID);
    expect((await env.c.get(`/secrets/sec_${"0".repeat(26)}`)).body).toEqual(NOT_FOUND);
  });

  test("a bad limit or nextToken → 400", async () => {
    expect((await env.c.get("/secrets?limit=0")).body).toEqual(INVALID);
    expect((await env.c.get("/secrets?limit=101")).body).toEqual(INVALID);
    expect((await env.c.get("/secrets?nextToken=zz")).body).toEqual(INVALID);
  });

  test("no API key, or an access token instead → 401 'You are not authenticated'", async () => {
    for (const auth of ["none", "token"] as const) {
      const res = await env.c.post("/secrets", { name: "anon", value: VALUE }, auth);
      expect(res.body).toEqual({ code: 401, message: "You are not authenticated" });
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
  });

  test("an update without a value → 400 and leaves the version", async () => {
    const { body: made } = await env.c.post("/secrets", { name: "unchanged", value: VALUE });
    expect((await env.c.post(`/secrets/${made.secretID}`, { metadata: {} })).body).toEqual(INVALID);
    expect((await env.c.get(`/secrets/${made.secretID}`)).body.currentVersion).toBe(1);
  });
});
