import { describe, expect, test } from "vitest";
import { DOCKERFILE, readyTemplate, requestBuild, useEmulator } from "./platform-helpers";

const BASE_ID = "rki5dems9wqfm4r03t7g";
const ZERO = "0001-01-01T00:00:00Z";

const env = useEmulator();

describe("POST /templates (v1)", () => {
  test("accepts only a Bearer access token", async () => {
    for (const auth of ["key", "none", { authorization: "Bearer sk_e2b_wrong" }] as const) {
      const res = await env.c.post("/templates", { dockerfile: DOCKERFILE }, auth);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 401, message: "Invalid Access token, try to login again by running `e2b auth login`." });
    }
  });

  test("202 with the TemplateLegacy body: only IDs, aliases, names and public filled", async () => {
    const res = await env.c.post("/templates", { dockerfile: DOCKERFILE, alias: " My-App ", cpuCount: 2, memoryMB: 512 }, "token");
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      templateID: expect.stringMatching(/^[a-z0-9]{20}$/),
      buildID: expect.stringMatching(/^[0-9a-f-]{36}$/),
      cpuCount: 0, memoryMB: 0, diskSizeMB: 0, public: false,
      aliases: ["my-app"], names: ["emulator/my-app"],
      createdAt: ZERO, updatedAt: ZERO, createdBy: null, lastSpawnedAt: null,
      spawnCount: 0, buildCount: 0, envdVersion: "", buildStatus: "",
    });
  });

  const D = DOCKERFILE;
  test.each([
    ["no dockerfile", {}, 'validation error: request body has an error: Error at "/dockerfile": property "dockerfile" is missing'],
    ["cpuCount 0", { dockerfile: D, cpuCount: 0 }, 'validation error: request body has an error: Error at "/cpuCount": number must be at least 1'],
    ["cpuCount 64", { dockerfile: D, cpuCount: 64 }, "CPU count must be at most 32"],
    ["cpuCount 3", { dockerfile: D, cpuCount: 3 }, "CPU count must be 1 or an even number"],
    ["memoryMB 100", { dockerfile: D, memoryMB: 100 }, 'validation error: request body has an error: Error at "/memoryMB": number must be at least 128'],
    ["memoryMB 1001", { dockerfile: D, memoryMB: 1001 }, "Memory must be divisible by 2"],
    ["cpuCount 16", { dockerfile: D, cpuCount: 16 }, "CPU count can't be higher than 8 (if you need to increase this limit, please contact support)"],
    ["memoryMB 8194", { dockerfile: D, memoryMB: 8194 }, "Memory can't be higher than 8192 MiB (if you need to increase this limit, please contact support)"],
    ["a bad alias", { dockerfile: D, alias: "Bad Alias!" }, "Invalid alias: 'Bad Alias!' must contain only lowercase letters, numbers, dashes and underscores"],
    ["a foreign namespace", { dockerfile: D, alias: "other/app" }, "Invalid alias: namespace 'other' must match your team 'emulator'"],
  ])("%s → 400", async (_label, body, message) => {
    const res = await env.c.post("/templates", body, "token");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message });
  });

  test("an alias of another template → 403; a template ID as alias → 409", async () => {
    const owner = await requestBuild(env.c, { dockerfile: DOCKERFILE, alias: "taken" });
    const clash = await env.c.post("/templates", { dockerfile: DOCKERFILE, alias: "taken" }, "token");
    expect(clash.body).toEqual({ code: 403, message: "Alias 'taken' already used" });
    const idClash = await env.c.post("/templates", { dockerfile: DOCKERFILE, alias: owner.templateID }, "token");
    expect(idClash.body).toEqual({ code: 409, message: `Alias '${owner.templateID}' is already used` });
    const own = await env.c.post(`/templates/${owner.templateID}`, { dockerfile: DOCKERFILE, alias: "emulator/taken" }, "token");
    expect(own.status).toBe(202);
  });

  test("rebuild of an unknown template → 404; of the built-in one → 403", async () => {
    expect((await env.c.post("/templates/nosuch", { dockerfile: DOCKERFILE }, "token")).body).toEqual({ code: 404, message: "Template 'nosuch' not found" });
    expect((await env.c.post(`/templates/${BASE_ID}`, { dockerfile: DOCKERFILE }, "token")).body).toEqual({
      code: 403, message: `You do not have access to the template '${BASE_ID}'`,
    });
  });
});

describe("reading templates", () => {
  test("GET /templates lists the team's templates with the Template shape", async () => {
    const templateID = await readyTemplate(env.c, "shown");
    await env.c.post("/sandboxes", { templateID: "shown" });
    const res = await env.c.get("/templates");
    expect(res.status).toBe(200);
    expect(res.body.some((t: { templateID: string }) => t.templateID === BASE_ID)).toBe(false);
    const t = res.body.find((x: { templateID: string }) => x.templateID === templateID);
    expect(t).toEqual({
      templateID, buildID: expect.any(String), cpuCount: 2, memoryMB: 1024, diskSizeMB: 5120, public: false,
      aliases: ["shown"], names: ["emulator/shown"], createdAt: expect.any(String), updatedAt: expect.any(String),
      createdBy: { id: expect.any(String), email: "user@emulator.local" }, lastSpawnedAt: expect.any(String),
      spawnCount: 1, buildCount: 1, envdVersion: "0.6.4", buildStatus: "ready",
    });
  });

  test("GET /templates/{id}: TemplateWithBuilds by ID only; 404 otherwise", async () => {
    const templateID = await readyTemplate(env.c, "detailed");
    const res = await env.c.get(`/templates/${templateID}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ templateID, public: false, aliases: ["detailed"], names: ["emulator/detailed"], spawnCount: 0, lastSpawnedAt: null });
    expect(res.body.builds).toEqual([expect.objectContaining({ status: "ready", cpuCount: 2, memoryMB: 1024 })]);
    expect((await env.c.get("/templates/detailed")).body).toEqual({ code: 404, message: "Template 'detailed' not found" });
    expect((await env.c.get(`/templates/${BASE_ID}`)).body.builds).toHaveLength(1);
  });

  test("GET /templates/aliases/{alias}", async () => {
    expect((await env.c.get("/templates/aliases/base")).body).toEqual({ templateID: BASE_ID, public: true });
    const templateID = await readyTemplate(env.c, "aliased");
    expect((await env.c.get("/templates/aliases/emulator%2Faliased")).body).toEqual({ templateID, public: false });
    expect((await env.c.get("/templates/aliases/nothing")).body).toEqual({ code: 404, message: "Template alias 'nothing' not found" });
  });
});

describe("PATCH /v2/templates/{id}", () => {
  test("sets public by ID or alias, with the key or the token; answers names", async () => {
    const templateID = await readyTemplate(env.c, "published");
    const byAlias = await env.c.patch("/v2/templates/published", { public: true });
    expect(byAlias).toMatchObject({ status: 200, body: { names: ["emulator/published"] } });
    expect((await env.c.get(`/templates/${templateID}`)).body.public).toBe(true);
    const byToken = await env.c.patch(`/v2/templates/${templateID}`, { public: false }, "token");
    expect(byToken.status).toBe(200);
    expect((await env.c.get("/templates/aliases/published")).body.public).toBe(false);
    expect((await env.c.patch(`/v2/templates/${templateID}`, {})).status).toBe(200);
  });

  test("errors: no credential 401, unknown 404, built-in 403, bad body 400", async () => {
    expect((await env.c.patch("/v2/templates/base", { public: true }, "none")).status).toBe(401);
    expect((await env.c.patch("/v2/templates/nosuch", { public: true })).body).toEqual({ code: 404, message: "Template 'nosuch' not found" });
    expect((await env.c.patch("/v2/templates/base", { public: false })).body).toEqual({ code: 403, message: "You do not have access to the template 'base'" });
    await readyTemplate(env.c, "patchy");
    expect((await env.c.patch("/v2/templates/patchy", { public: "yes" })).body.message).toMatch(/^validation error: request body has an error: Error at "\/public": /);
  });
});

describe("DELETE /templates/{id}", () => {
  test("refused while running or paused sandboxes use it; then 204 and the alias is free", async () => {
    await readyTemplate(env.c, "doomed");
    const sandbox = (await env.c.post("/sandboxes", { templateID: "doomed" })).body.sandboxID;
    expect((await env.c.del("/templates/doomed")).body).toEqual({
      code: 400, message: "cannot delete template 'doomed' because there are running sandboxes using it",
    });
    await env.c.post(`/sandboxes/${sandbox}/pause`);
    expect((await env.c.del("/templates/doomed")).body).toEqual({
      code: 400, message: "cannot delete template 'doomed' because there are paused sandboxes using it",
    });
    await env.c.del(`/sandboxes/${sandbox}`);
    const res = await env.c.del("/templates/doomed");
    expect(res.status).toBe(204);
    expect((await env.c.get("/templates/aliases/doomed")).status).toBe(404);
    expect((await env.c.post("/sandboxes", { templateID: "doomed" })).body.message).toBe("template 'doomed' not found");
    expect((await env.c.del("/templates/doomed")).status).toBe(404);
    expect((await env.c.del(`/templates/${BASE_ID}`)).status).toBe(403);
  });
});
