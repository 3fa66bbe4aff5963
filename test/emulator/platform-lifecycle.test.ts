import { existsSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { createSandbox, sandboxNotFound as NOT_FOUND, useEmulator, waitFor } from "./platform-helpers";

const env = useEmulator();
const create = (body?: Record<string, unknown>) => createSandbox(env.c, body);

const rootOf = (id: string) => env.emu.state.sandboxes().find((s) => s.sandboxID === id)?.rootDir;

describe("DELETE /sandboxes/{id}", () => {
  test("204, then the sandbox and its files are gone; a second delete is 404", async () => {
    const id = await create();
    const root = rootOf(id)!;
    expect(existsSync(`${root}/home/user`)).toBe(true);
    const res = await env.c.del(`/sandboxes/${id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(existsSync(root)).toBe(false);
    expect((await env.c.get(`/sandboxes/${id}`)).status).toBe(404);
    const again = await env.c.del(`/sandboxes/${id}`);
    expect(again.body).toEqual({ code: 404, message: NOT_FOUND(id) });
  });

  test("also deletes a paused sandbox", async () => {
    const id = await create();
    expect((await env.c.post(`/sandboxes/${id}/pause`)).status).toBe(204);
    expect((await env.c.del(`/sandboxes/${id}`)).status).toBe(204);
    expect((await env.c.get(`/sandboxes/${id}`)).status).toBe(404);
  });
});

describe("POST /sandboxes/{id}/timeout", () => {
  test("204 and endAt = now + timeout (it may shorten the time to live)", async () => {
    const id = await create({ timeout: 600 });
    const before = Date.now();
    expect((await env.c.post(`/sandboxes/${id}/timeout`, { timeout: 30 })).status).toBe(204);
    const endAt = Date.parse((await env.c.get(`/sandboxes/${id}`)).body.endAt);
    expect(endAt).toBeGreaterThanOrEqual(before + 30_000);
    expect(endAt).toBeLessThan(before + 600_000);
  });

  test("0 or less expires the sandbox at once", async () => {
    const id = await create({ timeout: 600 });
    expect((await env.c.post(`/sandboxes/${id}/timeout`, { timeout: 0 })).status).toBe(204);
    expect((await env.c.get(`/sandboxes/${id}`)).status).toBe(404);
  });

  test("validation and unknown sandboxes", async () => {
    const id = await create();
    expect((await env.c.post(`/sandboxes/${id}/timeout`, {})).body.message).toBe(
      'validation error: request body has an error: Error at "/timeout": property "timeout" is missing',
    );
    expect((await env.c.post(`/sandboxes/${id}/timeout`, { timeout: 90_000 })).body.message).toBe("Timeout cannot be greater than 24 hours");
    expect((await env.c.post("/sandboxes/imissing/timeout", { timeout: 5 })).body).toEqual({ code: 404, message: NOT_FOUND("imissing") });
  });
});

describe("pause and connect", () => {
  test("pause → 204 and paused (endAt = pause time); pausing again → 409", async () => {
    const id = await create({ timeout: 600 });
    expect((await env.c.post(`/sandboxes/${id}/pause`)).status).toBe(204);
    const got = await env.c.get(`/sandboxes/${id}`);
    expect(got.body.state).toBe("paused");
    expect(Date.parse(got.body.endAt)).toBeLessThan(Date.now() + 1000);
    const again = await env.c.post(`/sandboxes/${id}/pause`);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ code: 409, message: `Error pausing sandbox - sandbox '${id}' is already paused` });
  });

  test("paused files stay; connect resumes with 201 and endAt = now + timeout", async () => {
    const id = await create();
    await env.c.post(`/sandboxes/${id}/pause`);
    expect(existsSync(rootOf(id)!)).toBe(true);
    const before = Date.now();
    const res = await env.c.post(`/sandboxes/${id}/connect`, { timeout: 100 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ sandboxID: id, envdVersion: "0.6.4", domain: null });
    const got = await env.c.get(`/sandboxes/${id}`);
    expect(got.body.state).toBe("running");
    expect(Date.parse(got.body.endAt)).toBeGreaterThanOrEqual(before + 100_000);
  });

  test("connect to a running sandbox → 200 and only ever extends", async () => {
    const id = await create({ timeout: 600 });
    const endAt = (await env.c.get(`/sandboxes/${id}`)).body.endAt;
    const res = await env.c.post(`/sandboxes/${id}/connect`, { timeout: 10 });
    expect(res.status).toBe(200);
    expect((await env.c.get(`/sandboxes/${id}`)).body.endAt).toBe(endAt);
    await env.c.post(`/sandboxes/${id}/connect`, { timeout: 3600 });
    expect(Date.parse((await env.c.get(`/sandboxes/${id}`)).body.endAt)).toBeGreaterThan(Date.parse(endAt));
  });

  test("POST /v2/sandboxes/{id}/connect: the body is optional (300 s); 201 when it resumed", async () => {
    const id = await create({ timeout: 10 });
    const before = Date.now();
    expect((await env.c.post(`/v2/sandboxes/${id}/connect`)).status).toBe(200);
    expect(Date.parse((await env.c.get(`/sandboxes/${id}`)).body.endAt)).toBeGreaterThanOrEqual(before + 300_000);
    await env.c.post(`/sandboxes/${id}/pause`);
    expect((await env.c.post(`/v2/sandboxes/${id}/connect`, { timeout: 60 })).status).toBe(201);
    expect((await env.c.post("/v2/sandboxes/imissing/connect")).status).toBe(404);
  });

  test("connect needs a timeout; unknown sandboxes are 404", async () => {
    const id = await create();
    expect((await env.c.post(`/sandboxes/${id}/connect`, {})).body.message).toBe(
      'validation error: request body has an error: Error at "/timeout": property "timeout" is missing',
    );
    expect((await env.c.post(`/sandboxes/${id}/connect`, { timeout: -1 })).status).toBe(400);
    expect((await env.c.post("/sandboxes/imissing/connect", { timeout: 5 })).status).toBe(404);
    // The timeout is checked before the lookup: too long is a 400 even for an unknown sandbox.
    const tooLong = { code: 400, message: "Timeout cannot be greater than 24 hours" };
    expect((await env.c.post("/sandboxes/imissing/connect", { timeout: 25 * 3600 })).body).toEqual(tooLong);
    expect((await env.c.post("/v2/sandboxes/imissing/connect", { timeout: 25 * 3600 })).body).toEqual(tooLong);
    expect((await env.c.post("/sandboxes/imissing/pause")).status).toBe(404);
  });
});

describe("expiry", () => {
  test("at endAt a sandbox without autoPause is gone", async () => {
    const id = await create({ timeout: 1 });
    expect((await env.c.get(`/sandboxes/${id}`)).status).toBe(200);
    const gone = await waitFor("expiry", async () => ((await env.c.get(`/sandboxes/${id}`)).status === 404 ? true : undefined));
    expect(gone).toBe(true);
    expect(env.emu.state.sandboxes().some((s) => s.sandboxID === id)).toBe(false);
  });

  test("at endAt an autoPause sandbox is paused, and connect brings it back", async () => {
    const id = await create({ timeout: 1, autoPause: true });
    const paused = await waitFor("auto-pause", async () => {
      const res = await env.c.get(`/sandboxes/${id}`);
      return res.body.state === "paused" ? res.body : undefined;
    });
    expect(paused.lifecycle).toEqual({ autoResume: false, onTimeout: "pause" });
    expect((await env.c.post(`/sandboxes/${id}/connect`, { timeout: 60 })).status).toBe(201);
    expect((await env.c.get(`/sandboxes/${id}`)).body.state).toBe("running");
  });
});
