/**
 * Pause and resume at the platform API, codes and bodies as the service's handlers send them
 * (docs/service.md#pause-and-resume): POST /sandboxes/{id}/resume (deprecated, still served) and
 * pause calls that meet a pause under way.
 */
import { describe, expect, test } from "vitest";
import { createSandbox, sandboxNotFound as NOT_FOUND, useEmulator } from "./platform-helpers";

const env = useEmulator();
const create = (body?: Record<string, unknown>) => createSandbox(env.c, body);

describe("POST /sandboxes/{id}/resume", () => {
  test("201 with the sandbox for a paused one, running for 15 s when the body names no timeout", async () => {
    const id = await create({ timeout: 600 });
    expect((await env.c.post(`/sandboxes/${id}/pause`)).status).toBe(204);
    const before = Date.now();
    const res = await env.c.post(`/sandboxes/${id}/resume`);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ sandboxID: id, templateID: expect.any(String), clientID: expect.any(String) });
    const info = (await env.c.get(`/sandboxes/${id}`)).body;
    expect(info.state).toBe("running");
    expect(Date.parse(info.endAt)).toBeGreaterThanOrEqual(before + 15_000 - 1_000);
    expect(Date.parse(info.endAt)).toBeLessThan(before + 60_000);
  });

  test("takes a timeout; 0 or below is a 400", async () => {
    const id = await create();
    await env.c.post(`/sandboxes/${id}/pause`);
    expect(await env.c.post(`/sandboxes/${id}/resume`, { timeout: 0 })).toMatchObject({ status: 400, body: { code: 400, message: "Timeout must be greater than 0" } });
    const before = Date.now();
    expect((await env.c.post(`/sandboxes/${id}/resume`, { timeout: 120 })).status).toBe(201);
    expect(Date.parse((await env.c.get(`/sandboxes/${id}`)).body.endAt)).toBeGreaterThanOrEqual(before + 119_000);
  });

  test("409 for a running sandbox, 404 for an unknown or killed one, 400 for a malformed ID", async () => {
    const id = await create();
    expect(await env.c.post(`/sandboxes/${id}/resume`)).toMatchObject({ status: 409, body: { code: 409, message: `Sandbox ${id} is already running` } });
    expect(await env.c.post("/sandboxes/inope/resume")).toMatchObject({ status: 404, body: { code: 404, message: NOT_FOUND("inope") } });
    await env.c.post(`/sandboxes/${id}/pause`);
    expect((await env.c.del(`/sandboxes/${id}`)).status).toBe(204);
    expect((await env.c.post(`/sandboxes/${id}/resume`)).status).toBe(404);
    expect((await env.c.post("/sandboxes/NOT_AN_ID/resume")).status).toBe(400);
  });

  test("concurrent resumes of one paused sandbox collapse into one: all 201", async () => {
    const id = await create();
    await env.c.post(`/sandboxes/${id}/pause`);
    const answers = await Promise.all(Array.from({ length: 3 }, () => env.c.post(`/sandboxes/${id}/resume`)));
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201]);
    expect((await env.c.get(`/sandboxes/${id}`)).body.state).toBe("running");
  });
});

describe("POST /sandboxes/{id}/pause, concurrently", () => {
  test("five pause calls at once all answer 204; a pause after it finished is the 409", async () => {
    const id = await create();
    const answers = await Promise.all(Array.from({ length: 5 }, () => env.c.post(`/sandboxes/${id}/pause`)));
    expect(answers.map((r) => r.status)).toEqual([204, 204, 204, 204, 204]);
    const later = await env.c.post(`/sandboxes/${id}/pause`);
    expect(later).toMatchObject({ status: 409, body: { code: 409, message: `Error pausing sandbox - sandbox '${id}' is already paused` } });
  });

  test("a files-only pause (memory: false) is a pause too, and the sandbox resumes", async () => {
    const id = await create();
    expect((await env.c.post(`/sandboxes/${id}/pause`, { memory: false })).status).toBe(204);
    expect((await env.c.get(`/sandboxes/${id}`)).body.state).toBe("paused");
    expect((await env.c.post(`/sandboxes/${id}/connect`, { timeout: 60 })).status).toBe(201);
  });
});
