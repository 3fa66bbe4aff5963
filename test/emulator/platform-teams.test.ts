import { describe, expect, test } from "vitest";
import { readyTemplate, requestBuild, DOCKERFILE, useEmulator } from "./platform-helpers";

const env = useEmulator();
const OTHER_TEAM = "7b2e1b52-7f1c-4a5e-9d0e-2f1f7e0b9a11";
const teamID = async () => (await env.c.get("/teams", "token")).body[0].teamID as string;

describe("GET /teams", () => {
  test("lists the one team, with the API key, to an access token only", async () => {
    const res = await env.c.get("/teams", "token");
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ teamID: expect.stringMatching(/^[0-9a-f-]{36}$/), name: "emulator", apiKey: env.emu.apiKey, isDefault: true }]);
    expect((await env.c.get("/teams", "key")).status).toBe(401);
  });
});

describe("GET /teams/{teamID}/metrics and /metrics/max", () => {
  test("a series over the range, one point per step, counting the team's sandboxes", async () => {
    const team = await teamID();
    await env.c.post("/sandboxes", { templateID: "base", timeout: 600 });
    const now = Math.floor(Date.now() / 1000);
    const res = await env.c.get(`/teams/${team}/metrics?start=${now - 600}&end=${now + 60}`);
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThan(0);
    expect(res.body[0]).toEqual({
      timestamp: expect.any(String), timestampUnix: expect.any(Number), concurrentSandboxes: 1, sandboxStartRate: 0.2,
    });
    const max = await env.c.get(`/teams/${team}/metrics/max?metric=concurrent_sandboxes&start=${now - 600}&end=${now + 60}`);
    expect(max.body).toMatchObject({ value: 1, timestampUnix: expect.any(Number) });
    // Before the team's first sandbox there is nothing to report.
    expect((await env.c.get(`/teams/${team}/metrics?start=${now - 7200}&end=${now - 3600}`)).body).toEqual([]);
  });

  test("a start after the end is 400 with the service's message; another team is 403", async () => {
    const team = await teamID();
    for (const path of ["metrics?", "metrics/max?metric=sandbox_start_rate&"]) {
      const bad = await env.c.get(`/teams/${team}/${path}start=2000&end=1000`);
      expect(bad.body).toEqual({ code: 400, message: "start time cannot be after end time" });
      const late = await env.c.get(`/teams/${team}/${path}end=${Date.UTC(2300, 0, 1) / 1000}`);
      expect(late.body).toEqual({ code: 400, message: "end time cannot be after 2299-12-31T23:59:59.999Z" });
      const other = await env.c.get(`/teams/${OTHER_TEAM}/${path}`);
      expect(other.body).toEqual({ code: 403, message: `You (${team}) are not authorized to access this team's (${OTHER_TEAM}) metrics` });
    }
    expect((await env.c.get(`/teams/${team}/metrics/max`)).body).toEqual({
      code: 400, message: 'validation error: parameter "metric" in query has an error: value is required but missing',
    });
    expect((await env.c.get(`/teams/${team}/metrics`, { "x-api-key": "e2b_0000" })).status).toBe(401);
  });
});

describe("GET /v2/templates", () => {
  test("the team's templates, newest first, in cursor pages", async () => {
    const older = await readyTemplate(env.c, "listed-one");
    const newer = (await requestBuild(env.c, { dockerfile: DOCKERFILE, alias: "listed-two" })).templateID;
    const all = await env.c.get("/v2/templates");
    expect(all.status).toBe(200);
    expect(all.body.map((t: { templateID: string }) => t.templateID)).toEqual([newer, older]);
    expect(all.body[1]).toMatchObject({ templateID: older, aliases: ["listed-one"], buildStatus: "ready", public: false });
    const first = await env.c.get("/v2/templates?limit=1");
    expect(first.body.map((t: { templateID: string }) => t.templateID)).toEqual([newer]);
    const token = first.headers.get("x-next-token")!;
    const second = await env.c.get(`/v2/templates?limit=1&nextToken=${encodeURIComponent(token)}`);
    expect(second.body.map((t: { templateID: string }) => t.templateID)).toEqual([older]);
    expect(second.headers.get("x-next-token")).toBeNull();
  });

  test("a wrong key is 401; a teamID of another team is 400, on v2 and v1", async () => {
    expect((await env.c.get("/v2/templates", { "x-api-key": "e2b_0000" })).status).toBe(401);
    const mismatch = { code: 400, message: "Team ID param mismatch with the API key" };
    expect((await env.c.get(`/v2/templates?teamID=${OTHER_TEAM}`)).body).toEqual(mismatch);
    expect((await env.c.get(`/templates?teamID=${OTHER_TEAM}`)).body).toEqual(mismatch);
    const own = await teamID();
    expect((await env.c.get(`/v2/templates?teamID=${own}`)).status).toBe(200);
    expect((await env.c.get(`/templates?teamID=${own}`)).status).toBe(200);
  });
});
