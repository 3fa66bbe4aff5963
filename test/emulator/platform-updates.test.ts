/** POST /sandboxes/{id}/refreshes and PUT /sandboxes/{id}/network, as the real handlers answer them. */
import { describe, expect, test } from "vitest";
import { createSandbox, sandboxNotFound as NOT_FOUND, useEmulator } from "./platform-helpers";

const env = useEmulator();
const create = (body?: Record<string, unknown>) => createSandbox(env.c, body);

const endAt = async (id: string) => Date.parse((await env.c.get(`/sandboxes/${id}`)).body.endAt);

describe("POST /sandboxes/{id}/refreshes", () => {
  test("204 and the time to live grows to now + duration", async () => {
    const id = await create({ timeout: 20 });
    const before = Date.now();
    const res = await env.c.post(`/sandboxes/${id}/refreshes`, { duration: 600 });
    expect(res).toMatchObject({ status: 204, body: undefined });
    expect(await endAt(id)).toBeGreaterThanOrEqual(before + 600_000);
  });

  test("never shortens it; without a body it keeps at least the default 15 s", async () => {
    const id = await create({ timeout: 600 });
    const end = await endAt(id);
    expect((await env.c.post(`/sandboxes/${id}/refreshes`, { duration: 1 })).status).toBe(204);
    expect((await env.c.post(`/sandboxes/${id}/refreshes`)).status).toBe(204);
    expect(await endAt(id)).toBe(end);
  });

  test("a paused or missing sandbox → 404; a duration over an hour → 400", async () => {
    const id = await create();
    expect((await env.c.post(`/sandboxes/${id}/refreshes`, { duration: 3601 })).status).toBe(400);
    expect((await env.c.post(`/sandboxes/${id}/pause`)).status).toBe(204);
    expect((await env.c.post(`/sandboxes/${id}/refreshes`, {})).body).toEqual({ code: 404, message: NOT_FOUND(id) });
    expect((await env.c.post("/sandboxes/imissing/refreshes", {})).status).toBe(404);
  });
});

describe("PUT /sandboxes/{id}/network", () => {
  test("204; replaces the egress rules, keeps what is not egress, and a field left out is cleared", async () => {
    const id = await create({ network: { allowPublicTraffic: false, allowOut: ["1.1.1.1"], denyOut: ["0.0.0.0/0"] }, secure: true });
    const res = await env.c.call("PUT", `/sandboxes/${id}/network`, { allowOut: ["8.8.8.8"] });
    expect(res).toMatchObject({ status: 204, body: undefined });
    expect((await env.c.get(`/sandboxes/${id}`)).body.network).toEqual({ allowPublicTraffic: false, allowOut: ["8.8.8.8"] });
    expect((await env.c.call("PUT", `/sandboxes/${id}/network`, { allow_internet_access: false })).status).toBe(204);
    const detail = (await env.c.get(`/sandboxes/${id}`)).body;
    expect(detail).toMatchObject({ network: { allowPublicTraffic: false }, allowInternetAccess: false });
  });

  test("needs a body; an egress proxy is not enabled for the team (403); paused → 409; missing → 404", async () => {
    const id = await create();
    expect((await env.c.call("PUT", `/sandboxes/${id}/network`)).status).toBe(400);
    expect((await env.c.call("PUT", `/sandboxes/${id}/network`, { egressProxy: { address: "proxy:1080" } })).body).toEqual({
      code: 403, message: "Egress proxy (egressProxy) is not enabled for this team.",
    });
    expect((await env.c.post(`/sandboxes/${id}/pause`)).status).toBe(204);
    expect((await env.c.call("PUT", `/sandboxes/${id}/network`, {})).status).toBe(409);
    expect((await env.c.call("PUT", "/sandboxes/imissing/network", {})).status).toBe(404);
  });
});
