/**
 * E2B's dashboard API (infra spec/openapi-dashboard.yml) under /dashboard-api: each read the public
 * e2b-dev/dashboard makes answers what the emulator's stores hold, with the team key as the dashboard
 * sends it (or the access token with X-Team-ID), and bad input and unknown IDs get the spec's statuses.
 * Every answer here is also checked against test/contract/dashboard-api.contract.json by `npm test`.
 */
import { beforeAll, describe, expect, test } from "vitest";
import { DASHBOARD_PREFIX } from "../../emulator/routes/dashboard";
import { buildFinished, DOCKERFILE, requestBuild, useEmulator, waitFor, type Auth, type Client } from "./platform-helpers";

const env = useEmulator({ buildDelayMs: 10 });
let c: Client;
const dash = (path: string, auth?: Auth) => c.get(`${DASHBOARD_PREFIX}${path}`, auth);
const UNKNOWN_UUID = "0b6d6f57-4f36-4c8e-9d0a-1f1e2d3c4b5a";

let ready: { templateID: string; buildID: string };
let failed: { templateID: string; buildID: string };

/** A template built as the newest SDKs build (v3 + v2 start), so its build takes the `default` tag. */
async function v3Build(name: string): Promise<{ templateID: string; buildID: string }> {
  const made = (await c.post("/v3/templates", { name })).body as { templateID: string; buildID: string };
  expect((await c.post(`/v2/templates/${made.templateID}/builds/${made.buildID}`, { fromImage: "e2bdev/base" })).status).toBe(202);
  await buildFinished(c, made.templateID, made.buildID);
  return made;
}

beforeAll(async () => {
  c = env.c;
  ready = await v3Build("dash-app");
  failed = await requestBuild(c, { dockerfile: "FROM alpine\nRUN exit 3\n", alias: "dash-broken" });
  await buildFinished(c, failed.templateID, failed.buildID);
});

describe("builds", () => {
  test("GET /builds lists the team's builds newest first with their status; the built-in template's are not there", async () => {
    const res = await dash("/builds");
    expect(res.status).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.data.map((b: { id: string }) => b.id)).toEqual([failed.buildID, ready.buildID]);
    expect(res.body.data[1]).toEqual({
      id: ready.buildID, template: "dash-app", templateId: ready.templateID, status: "success", statusMessage: null,
      createdAt: expect.any(String), finishedAt: expect.any(String), cpuCount: 2, memoryMB: 1024, diskSizeMB: expect.any(Number), envdVersion: expect.any(String),
    });
    expect(res.body.data[0]).toMatchObject({ template: "dash-broken", status: "failed", statusMessage: "failed to run command 'exit 3': exit status 3" });
  });

  test("filters by status, by template alias or ID, by build ID; pages with the cursor it gives", async () => {
    const ids = async (query: string) => (await dash(`/builds${query}`)).body.data.map((b: { id: string }) => b.id);
    expect(await ids("?statuses=success")).toEqual([ready.buildID]);
    expect(await ids("?statuses=building,failed")).toEqual([failed.buildID]);
    expect(await ids("?build_id_or_template=dash-app")).toEqual([ready.buildID]);
    expect(await ids(`?build_id_or_template=${failed.templateID}`)).toEqual([failed.buildID]);
    expect(await ids(`?build_id_or_template=${ready.buildID}`)).toEqual([ready.buildID]);
    expect(await ids("?build_id_or_template=nothing-like-it")).toEqual([]);
    const first = await dash("/builds?limit=1");
    expect(first.body.data.map((b: { id: string }) => b.id)).toEqual([failed.buildID]);
    const second = await dash(`/builds?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body).toMatchObject({ data: [{ id: ready.buildID }], nextCursor: null });
  });

  test("a build in progress is `building` with no end; GET /builds/statuses answers the IDs asked that the team has", async () => {
    env.emu.holdBuilds();
    const running = await requestBuild(c, { dockerfile: DOCKERFILE, alias: "dash-held" });
    try {
      const statuses = await dash(`/builds/statuses?build_ids=${running.buildID},${ready.buildID},${UNKNOWN_UUID}`);
      expect(statuses.status).toBe(200);
      expect(statuses.body).toEqual({
        buildStatuses: [
          { id: running.buildID, status: "building", finishedAt: null, statusMessage: null },
          { id: ready.buildID, status: "success", finishedAt: expect.any(String), statusMessage: null },
        ],
      });
    } finally {
      env.emu.releaseBuilds();
    }
    await buildFinished(c, running.templateID, running.buildID);
    await waitFor("success", async () => ((await dash(`/builds/${running.buildID}`)).body.status === "success" ? true : undefined));
  });

  test("GET /builds/{build_id} answers one build; an unknown ID, the built-in template's build or no UUID is 404", async () => {
    const res = await dash(`/builds/${ready.buildID}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ names: ["emulator/dash-app"], createdAt: expect.any(String), finishedAt: expect.any(String), status: "success", statusMessage: null });
    const base = (await dash("/templates/defaults")).body.templates[0].buildId as string;
    for (const id of [UNKNOWN_UUID, base, "not-a-uuid"]) {
      expect(await dash(`/builds/${id}`)).toMatchObject({ status: 404, body: { code: 404, message: `Build '${id}' not found` } });
    }
  });

  test("bad input is 400 in the Error shape", async () => {
    const bad = [
      ["/builds?statuses=ready", /parameter "statuses" in query has an error: value is not one of/],
      ["/builds?limit=0", /parameter "limit" in query has an error: number must be at least 1/],
      ["/builds?limit=101", /number must be at most 100/],
      ["/builds?cursor=yesterday", /parameter "cursor" in query has an error: invalid cursor/],
      ["/builds/statuses", /parameter "build_ids" in query has an error: value is required but missing/],
      ["/builds/statuses?build_ids=abc", /each value must be a UUID/],
      [`/builds/statuses?build_ids=${UNKNOWN_UUID},${UNKNOWN_UUID}`, /items must be unique/],
    ] as const;
    for (const [path, message] of bad) {
      const res = await dash(path);
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 400, code: 400 });
      expect(res.body.message).toMatch(message);
    }
  });
});

describe("templates", () => {
  test("GET /templates/defaults lists the default templates with their ready build", async () => {
    const res = await dash("/templates/defaults");
    expect(res.status).toBe(200);
    const base = (await c.get("/default-templates")).body.find((t: { aliases: string[] }) => t.aliases.includes("base"));
    expect(res.body.templates).toEqual([{
      id: base.templateID, aliases: [{ alias: "base", namespace: null }], buildId: base.buildID, ramMb: base.memoryMB, vcpu: base.cpuCount,
      totalDiskSizeMb: base.diskSizeMB, envdVersion: base.envdVersion, createdAt: base.createdAt, public: true, buildCount: 1, spawnCount: 0,
    }]);
  });

  test("GET /templates lists the team's templates and the default ones, filtered, sorted and paged", async () => {
    const all = await dash("/templates?sort=created_at_asc");
    expect(all.status).toBe(200);
    const names = all.body.data.map((t: { aliases: string[]; isDefault: boolean }) => [t.aliases[0], t.isDefault]);
    expect(names.slice(0, 3)).toEqual([["base", true], ["dash-app", false], ["dash-broken", false]]);
    expect((await dash("/templates?search=BROKEN")).body.data.map((t: { templateID: string }) => t.templateID)).toEqual([failed.templateID]);
    expect((await dash("/templates?public=true")).body.data.map((t: { aliases: string[] }) => t.aliases)).toEqual([["base"]]);
    const first = await dash("/templates?sort=created_at_asc&limit=1");
    const next = await dash(`/templates?sort=created_at_asc&limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(next.body.data[0].templateID).toBe(ready.templateID);
    const otherSort = await dash(`/templates?sort=created_at_desc&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(otherSort).toMatchObject({ status: 400, body: { message: /cursor was issued for a different sort/ } });
    expect((await dash("/templates?sort=name")).status).toBe(400);
    expect((await dash("/templates?public=maybe")).status).toBe(400);
  });

  test("GET /templates/{templateID} answers one of the team's templates; unknown or built-in is 404", async () => {
    const res = await dash(`/templates/${ready.templateID}`);
    expect(res.body).toMatchObject({ templateID: ready.templateID, buildID: ready.buildID, cpuCount: 2, memoryMB: 1024, names: ["emulator/dash-app"], buildCount: 1 });
    const noReady = await dash(`/templates/${failed.templateID}`);
    expect(noReady.body).toMatchObject({ buildID: "00000000-0000-0000-0000-000000000000", cpuCount: null, memoryMB: null, diskSizeMB: null, envdVersion: null });
    expect(await dash("/templates/nosuchtemplate")).toMatchObject({ status: 404, body: { code: 404, message: "Template 'nosuchtemplate' not found" } });
    expect((await dash("/templates/base")).status).toBe(404);
  });

  test("the tag reads answer from the template's tag history", async () => {
    expect((await dash(`/templates/${ready.templateID}/tags/count`)).body).toEqual({ total: 1 });
    expect((await dash(`/templates/${ready.templateID}/tags/exists?tag=Default`)).body).toEqual({ exists: true, normalizedTag: "default" });
    const groups = await dash(`/templates/${ready.templateID}/tags/groups`);
    expect(groups.body.tags.map((g: { tag: string }) => g.tag)).toEqual(["default"]);
    const assigned = await dash(`/templates/${ready.templateID}/tags/default/assignments`);
    expect(assigned.body.data.map((a: { buildId: string }) => a.buildId)).toEqual([ready.buildID]);
    expect((await dash(`/templates/${UNKNOWN_UUID}/tags/count`)).status).toBe(404);
  });
});

describe("credentials", () => {
  test("the team key, or the access token with the team's ID in X-Team-ID; anything else is refused", async () => {
    const teamID = (await c.get("/teams", "token")).body[0].teamID as string;
    const token = { authorization: `Bearer ${env.emu.accessToken}` };
    expect((await dash("/builds", { ...token, "x-team-id": teamID })).status).toBe(200);
    expect(await dash("/builds", token)).toMatchObject({ status: 401, body: { message: "X-Team-ID header is required with a bearer token" } });
    expect(await dash("/builds", { ...token, "x-team-id": UNKNOWN_UUID })).toMatchObject({ status: 403, body: { code: 403 } });
    expect((await dash("/templates/defaults", "token")).status).toBe(200);
    expect((await dash("/builds", "none")).status).toBe(401);
    expect((await dash("/builds", { "x-api-key": "e2b_wrong" })).status).toBe(401);
  });

  test("/health answers without credentials; a write the emulator does not serve is 501 naming it", async () => {
    expect(await dash("/health", "none")).toMatchObject({ status: 200, body: { message: "Health check successful" } });
    const res = await c.call("GET", `${DASHBOARD_PREFIX}/teams/${UNKNOWN_UUID}/members`);
    expect(res).toMatchObject({ status: 501, body: { code: 501, message: "dashboard API GET /teams/{teamID}/members is not implemented by the emulator" } });
  });
});
