/**
 * The template routes and fields of the newest official SDKs (docs/service.md#template-routes-of-the-newest-sdks):
 * `minFreeDiskMb`, the upload `headers`, `isDefault` and `description`, GET /default-templates, the tag
 * history routes (count, exists, groups, assignments) and the one-source rule of a build start. Driven
 * through the official `e2b` JS SDK (node_modules/e2b, unmodified) where it has the call, through
 * HTTP elsewhere.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Sandbox, Template, type ConnectionOpts } from "e2b";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../emulator";
import { BASE_TEMPLATE_ID } from "../../emulator/store/templates";
import { buildFinished, client, startEmulator, useEmulator, type Client } from "./platform-helpers";

const env = useEmulator();
let c: Client;
let emu: Emulator;
let opts: ConnectionOpts;
let context: string;
/** Headers of each PUT to an upload URL, as the server received them. */
const uploads: IncomingMessage["headers"][] = [];

beforeAll(() => {
  ({ c, emu } = env);
  opts = { apiKey: emu.apiKey, apiUrl: emu.apiUrl, sandboxUrl: emu.sandboxUrl };
  context = mkdtempSync(join(tmpdir(), "newest-routes-"));
  writeFileSync(join(context, "hello.txt"), "hello from the context\n");
  emu.server.prependListener("request", (req: IncomingMessage) => {
    if (req.method === "PUT" && req.url?.startsWith("/_uploads/")) uploads.push({ ...req.headers });
  });
});
afterAll(() => rmSync(context, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Creates a sandbox of `templateID` over HTTP, reads its diskSizeMB and kills it. */
async function sandboxDisk(templateID: string): Promise<number> {
  const made = await c.post("/sandboxes", { templateID });
  expect(made.status).toBe(201);
  const disk = (await c.get(`/sandboxes/${made.body.sandboxID}`)).body.diskSizeMB as number;
  expect((await c.del(`/sandboxes/${made.body.sandboxID}`)).status).toBe(204);
  return disk;
}

describe("POST /v3/templates minFreeDiskMb", () => {
  it("grows the build's disk to the requested free space, through the official SDK; sandboxes get that disk", async () => {
    const built = await Template.build(Template().fromImage("e2bdev/base"), "disk-big", { ...opts, minFreeDiskMb: 20480 });
    const detail = (await c.get(`/templates/${built.templateId}`)).body;
    expect(detail.diskSizeMB).toBe(20480);
    expect(detail.builds.map((b: { buildID: string; diskSizeMB: number }) => [b.buildID, b.diskSizeMB])).toEqual([[built.buildId, 20480]]);
    expect(await sandboxDisk("disk-big")).toBe(20480);
  });

  it("0 leaves an image's filesystem as it is; omitted, the team's default applies", async () => {
    const none = await Template.build(Template().fromImage("e2bdev/base"), "disk-none", { ...opts, minFreeDiskMb: 0 });
    const dflt = await Template.build(Template().fromImage("e2bdev/base"), "disk-default", opts);
    expect((await c.get(`/templates/${none.templateId}`)).body.builds[0].diskSizeMB).toBe(1024);
    expect((await c.get(`/templates/${dflt.templateId}`)).body.builds[0].diskSizeMB).toBe(5120);
  });

  it("never shrinks an inherited filesystem (fromTemplate), and grows past it on request", async () => {
    const kept = await Template.build(Template().fromTemplate("disk-big"), "disk-inherit", { ...opts, minFreeDiskMb: 0 });
    const grown = await Template.build(Template().fromTemplate("disk-big"), "disk-grown", { ...opts, minFreeDiskMb: 30000 });
    expect((await c.get(`/templates/${kept.templateId}`)).body.builds[0].diskSizeMB).toBe(20480);
    expect((await c.get(`/templates/${grown.templateId}`)).body.builds[0].diskSizeMB).toBe(30000);
  });

  it("refuses a negative or fractional value with 400", async () => {
    expect((await c.post("/v3/templates", { name: "disk-bad", minFreeDiskMb: -1 })).body).toEqual({
      code: 400, message: 'validation error: request body has an error: Error at "/minFreeDiskMb": number must be at least 0',
    });
    expect((await c.post("/v3/templates", { name: "disk-bad", minFreeDiskMb: 1.5 })).body).toEqual({
      code: 400, message: 'validation error: request body has an error: Error at "/minFreeDiskMb": Invalid input: expected int, received number',
    });
    expect((await c.get("/templates/aliases/disk-bad")).status).toBe(404);
  });
});

describe("GET /templates/{templateID}/files/{hash} headers", () => {
  const hash = "a".repeat(64);
  const link = async (templateID: string) => (await c.get(`/templates/${templateID}/files/${hash}`)).body as { present: boolean; url: string; headers: Record<string, string> };
  const put = (url: string, headers: Record<string, string> = {}) => fetch(url, { method: "PUT", body: "archive", headers: { "content-length": "7", ...headers } });

  it("names the header the upload must send; a different value is refused as the object store refuses a bad signature", async () => {
    const { templateID } = (await c.post("/v3/templates", { name: "upload-headers" })).body;
    const first = await link(templateID);
    expect(Object.keys(first).sort()).toEqual(["headers", "present", "url"]);
    expect(first.present).toBe(false);
    expect(first.url).toMatch(new RegExp(`^${emu.apiUrl}/_uploads/[A-Za-z0-9_-]{24}$`));
    expect(Object.keys(first.headers)).toEqual(["x-emulator-upload-key"]);
    expect(first.headers["x-emulator-upload-key"]).toMatch(/^[0-9a-f]{32}$/);
    const wrong = await put(first.url, { "x-emulator-upload-key": "0".repeat(32) });
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided. Check your key and signing method.</Message></Error>',
    );
    expect((await link(templateID)).present).toBe(false);
    expect((await put(first.url, first.headers)).status).toBe(200);
    const second = await link(templateID);
    expect(second.present).toBe(true);
    // Each URL is signed on its own.
    expect(second.headers["x-emulator-upload-key"]).not.toBe(first.headers["x-emulator-upload-key"]);
    expect((await put(second.url, first.headers)).status).toBe(403);
  });

  it("takes an upload without the header, as clients older than the field send it", async () => {
    const { templateID } = (await c.post("/v3/templates", { name: "upload-no-headers" })).body;
    expect((await put((await link(templateID)).url)).status).toBe(200);
    expect((await link(templateID)).present).toBe(true);
  });

  it("the official SDK sends the header it was given, and its build gets the files", async () => {
    const before = uploads.length;
    await Template.build(Template({ fileContextPath: context }).fromImage("e2bdev/base").copy("hello.txt", "/home/user/hello.txt"), "upload-sdk", opts);
    const sent = uploads.slice(before);
    expect(sent).toHaveLength(1);
    // A value other than the one issued would have been refused (above), failing the build.
    expect(sent[0]!["x-emulator-upload-key"]).toMatch(/^[0-9a-f]{32}$/);
    const sandbox = await Sandbox.create("upload-sdk", { ...opts, timeoutMs: 60_000 });
    try {
      expect(await sandbox.files.read("/home/user/hello.txt")).toBe("hello from the context\n");
    } finally {
      await sandbox.kill();
    }
  });
});

describe("isDefault, description and GET /default-templates", () => {
  it("lists the seeded base: its default build, usage hidden, ordered by ID", async () => {
    // A sandbox of base counts as a spawn the caller must not see.
    expect(await sandboxDisk("base")).toBe(5120);
    const baseBuild = (await c.get(`/templates/${BASE_TEMPLATE_ID}`)).body.builds[0].buildID as string;
    const res = await c.get("/default-templates");
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{
      templateID: BASE_TEMPLATE_ID, buildID: baseBuild, cpuCount: 2, memoryMB: 512, diskSizeMB: 5120, public: true,
      aliases: ["base"], names: ["base"], createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO),
      createdBy: null, lastSpawnedAt: null, spawnCount: 0, buildCount: 0, envdVersion: "0.6.4", buildStatus: "ready",
      isDefault: true, description: "The emulator's built-in base template",
    }]);
    expect((await c.get("/default-templates", "none")).status).toBe(401);
  });

  it("GET /templates/{id} carries the Template fields; base is default, with its usage hidden", async () => {
    const base = (await c.get(`/templates/${BASE_TEMPLATE_ID}`)).body;
    const { builds, ...rest } = base;
    expect(rest).toEqual({
      templateID: BASE_TEMPLATE_ID, buildID: builds[0].buildID, cpuCount: 2, memoryMB: 512, diskSizeMB: 5120, public: true,
      aliases: ["base"], names: ["base"], createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO),
      createdBy: null, lastSpawnedAt: null, spawnCount: 0, buildCount: 0, envdVersion: "0.6.4", buildStatus: "ready",
      isDefault: true, description: "The emulator's built-in base template",
    });
  });

  it("the team's own templates are not default and have no description, public or not", async () => {
    const built = await Template.build(Template().fromImage("e2bdev/base"), "own-template", opts);
    expect((await c.patch("/v2/templates/own-template", { public: true })).status).toBe(200);
    expect(await sandboxDisk("own-template")).toBe(5120);
    const detail = (await c.get(`/templates/${built.templateId}`)).body;
    const { builds, ...rest } = detail;
    expect(rest).toEqual({
      templateID: built.templateId, buildID: built.buildId, cpuCount: 2, memoryMB: 1024, diskSizeMB: 5120, public: true,
      aliases: ["own-template"], names: ["emulator/own-template"], createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO),
      createdBy: { id: emu.snapshot().userID, email: "user@emulator.local" }, lastSpawnedAt: expect.stringMatching(ISO),
      spawnCount: 1, buildCount: 1, envdVersion: "0.6.4", buildStatus: "ready",
    });
    expect(builds.map((b: { buildID: string }) => b.buildID)).toEqual([built.buildId]);
    const listed = (await c.get("/v2/templates")).body.find((t: { templateID: string }) => t.templateID === built.templateId);
    expect(listed).not.toHaveProperty("isDefault");
    expect(listed).not.toHaveProperty("description");
    expect((await c.get("/default-templates")).body.map((t: { templateID: string }) => t.templateID)).toEqual([BASE_TEMPLATE_ID]);
  });
});

describe("tag history: count, exists, groups, assignments", () => {
  let templateID = "";
  let b1 = "";
  let b2 = "";
  const get = (path: string) => c.get(`/templates/${templateID}/tags${path}`);
  const assignment = (buildID: string) => ({
    assignmentId: expect.stringMatching(/^[0-9a-f-]{36}$/), buildId: buildID, assignedAt: expect.stringMatching(ISO),
    buildCreatedAt: expect.stringMatching(ISO), buildFinishedAt: expect.stringMatching(ISO),
  });

  beforeAll(async () => {
    // default → b1; stable → b2, then b1; prod → b2. Each assignment a few ms after the last, so times order them.
    const first = await Template.build(Template().fromImage("e2bdev/base"), "history", opts);
    await sleep(5);
    const second = await Template.build(Template().fromImage("e2bdev/base").runCmd("echo two"), "history", { ...opts, tags: ["stable"] });
    ({ templateId: templateID, buildId: b1 } = first);
    b2 = second.buildId;
    await sleep(5);
    expect(await Template.assignTags("history:stable", ["prod"], opts)).toEqual({ buildId: b2, tags: ["prod"] });
    await sleep(5);
    expect(await Template.assignTags(`history:${b1}`, ["stable"], opts)).toEqual({ buildId: b1, tags: ["stable"] });
  });

  it("count: the distinct tags with a ready build, as many as the SDK's getTags lists", async () => {
    expect((await get("/count")).body).toEqual({ total: 3 });
    expect((await Template.getTags(templateID, opts)).map((t) => t.tag).sort()).toEqual(["default", "prod", "stable"]);
  });

  it("exists: normalizes the tag and says whether it has a ready build", async () => {
    expect((await c.get(`/templates/${templateID}/tags/exists?tag=%20Prod%20`)).body).toEqual({ exists: true, normalizedTag: "prod" });
    expect((await get("/exists?tag=nightly")).body).toEqual({ exists: false, normalizedTag: "nightly" });
  });

  it("assignments: one tag's, newest first, paged by cursor", async () => {
    const all = await get("/stable/assignments");
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ data: [assignment(b1), assignment(b2)], nextCursor: null });
    expect(all.body.data[0].assignedAt > all.body.data[1].assignedAt).toBe(true);
    const one = (await get("/stable/assignments?limit=1")).body;
    expect(one.data).toEqual([all.body.data[0]]);
    expect(one.nextCursor).toBe(`${all.body.data[0].assignedAt}|${all.body.data[0].assignmentId}`);
    expect((await get(`/stable/assignments?limit=1&cursor=${encodeURIComponent(one.nextCursor)}`)).body).toEqual({ data: [all.body.data[1]], nextCursor: null });
    // Out-of-range limits are brought into range.
    expect((await get("/stable/assignments?limit=0")).body.data).toHaveLength(1);
    expect((await get("/STABLE/assignments")).body).toEqual(all.body);
    expect((await get("/nightly/assignments")).body).toEqual({ data: [], nextCursor: null });
  });

  it("groups: each tag with its latest assignments, in the asked order, paged over tags", async () => {
    const stable = (await get("/stable/assignments")).body.data;
    const prod = (await get("/prod/assignments")).body.data;
    const dflt = (await get("/default/assignments")).body.data;
    expect(prod).toEqual([assignment(b2)]);
    expect(dflt).toEqual([assignment(b1)]);
    const groups = await get("/groups");
    expect(groups.status).toBe(200);
    expect(groups.body).toEqual({
      tags: [{ tag: "stable", assignments: stable, hasMore: false }, { tag: "prod", assignments: prod, hasMore: false }, { tag: "default", assignments: dflt, hasMore: false }],
      nextCursor: null,
    });
    expect((await get("/groups?assignmentLimit=1")).body.tags[0]).toEqual({ tag: "stable", assignments: [stable[0]], hasMore: true });
    const order = async (query: string) => (await get(`/groups?${query}`)).body.tags.map((g: { tag: string }) => g.tag);
    expect(await order("sort=latest_asc")).toEqual(["default", "prod", "stable"]);
    expect(await order("sort=name_asc")).toEqual(["default", "prod", "stable"]);
    expect(await order("sort=name_desc")).toEqual(["stable", "prod", "default"]);
    expect(await order("search=%20A%20")).toEqual(["stable", "default"]);
    const page = (await get("/groups?tagsLimit=2")).body;
    expect(page.tags.map((g: { tag: string }) => g.tag)).toEqual(["stable", "prod"]);
    expect(page.nextCursor).toBe(`latest_desc|${prod[0].assignedAt}|prod`);
    const next = (await get(`/groups?tagsLimit=2&tagsCursor=${encodeURIComponent(page.nextCursor)}`)).body;
    expect(next).toEqual({ tags: [{ tag: "default", assignments: dflt, hasMore: false }], nextCursor: null });
    const byName = (await get("/groups?sort=name_desc&tagsLimit=1")).body.nextCursor;
    expect(byName).toBe(`name_desc|${stable[0].assignedAt}|stable`);
    expect(await order(`sort=name_desc&tagsCursor=${encodeURIComponent(byName)}`)).toEqual(["prod", "default"]);
  });

  it("a tag the SDK removes leaves the count, exists, groups and assignments", async () => {
    const made = await Template.build(Template().fromImage("e2bdev/base"), "history-removal", { ...opts, tags: ["keep", "gone"] });
    await Template.removeTags("history-removal", ["gone"], opts);
    const at = (path: string) => c.get(`/templates/${made.templateId}/tags${path}`);
    expect((await at("/count")).body).toEqual({ total: 1 });
    expect((await at("/exists?tag=gone")).body).toEqual({ exists: false, normalizedTag: "gone" });
    expect((await at("/gone/assignments")).body).toEqual({ data: [], nextCursor: null });
    expect((await at("/groups")).body).toEqual({ tags: [{ tag: "keep", assignments: [assignment(made.buildId)], hasMore: false }], nextCursor: null });
  });

  it("a build that fails gives its tags no assignment", async () => {
    const requested = (await c.post("/v3/templates", { name: "history-failed", tags: ["broken"] })).body;
    expect((await c.post(`/v2/templates/${requested.templateID}/builds/${requested.buildID}`, { fromImage: "e2bdev/base", steps: [{ type: "FROBNICATE" }] })).status).toBe(202);
    expect((await buildFinished(c, requested.templateID, requested.buildID)).status).toBe("error");
    expect((await c.get(`/templates/${requested.templateID}/tags/count`)).body).toEqual({ total: 0 });
    expect((await c.get(`/templates/${requested.templateID}/tags/exists?tag=broken`)).body).toEqual({ exists: false, normalizedTag: "broken" });
  });

  it("answers 400 with a message for bad input", async () => {
    const bad = async (path: string) => {
      const res = await get(path);
      expect(res.status).toBe(400);
      return res.body.message as string;
    };
    expect(await bad("/exists")).toBe('validation error: parameter "tag" in query has an error: value is required but missing');
    expect(await bad("/exists?tag=no%20spaces")).toBe("Invalid tag 'no spaces': use lowercase letters, numbers, '-', '_' and '.', and not a UUID");
    expect(await bad(`/${b1}/assignments`)).toBe(`Invalid tag '${b1}': use lowercase letters, numbers, '-', '_' and '.', and not a UUID`);
    expect(await bad("/stable/assignments?cursor=nonsense")).toBe("Invalid cursor");
    expect(await bad("/stable/assignments?limit=ten")).toBe('validation error: parameter "limit" in query has an error: value must be an integer');
    expect(await bad("/groups?sort=newest")).toBe(
      'validation error: parameter "sort" in query has an error: value is not one of the allowed values ["latest_asc","latest_desc","name_asc","name_desc"]',
    );
    expect(await bad("/groups?search=a%2Bb")).toBe("Invalid search parameter: at most 64 of lowercase letters, numbers, '-', '_' and '.'");
    expect(await bad(`/groups?search=${"a".repeat(65)}`)).toBe("Invalid search parameter: at most 64 of lowercase letters, numbers, '-', '_' and '.'");
    expect(await bad("/groups?tagsCursor=name_asc%7C2025-01-01T00%3A00%3A00.000Z%7Cprod")).toBe("Cursor was issued for a different sort; clear the cursor and restart");
    expect(await bad("/groups?tagsCursor=latest_desc%7Cyesterday%7Cprod")).toBe("Invalid cursor");
    expect(await bad("/groups?assignmentLimit=1.5")).toBe('validation error: parameter "assignmentLimit" in query has an error: value must be an integer');
  });

  it("answers 404 for an unknown template and for another team's (base), 401 without the key", async () => {
    for (const path of ["/count", "/exists?tag=default", "/groups", "/default/assignments"]) {
      expect((await c.get(`/templates/nosuchtemplate/tags${path}`)).body).toEqual({ code: 404, message: "Template 'nosuchtemplate' not found" });
      expect((await c.get(`/templates/${BASE_TEMPLATE_ID}/tags${path}`)).body).toEqual({ code: 404, message: `Template '${BASE_TEMPLATE_ID}' not found` });
      expect((await c.get(`/templates/${templateID}/tags${path}`, "none")).status).toBe(401);
    }
  });

  it("the history survives a snapshot and restore, and is derived from the tags of an older snapshot", async () => {
    const groups = (await get("/groups")).body;
    const snapshot = emu.snapshot();
    const restored = await startEmulator({ restore: snapshot });
    try {
      expect((await client(restored).get(`/templates/${templateID}/tags/groups`)).body).toEqual(groups);
    } finally {
      await restored.close();
    }
    const older = JSON.parse(JSON.stringify(snapshot)) as typeof snapshot;
    for (const t of older.templates) delete t.tagLog;
    const fromOlder = await startEmulator({ restore: older });
    try {
      const r = client(fromOlder);
      expect((await r.get(`/templates/${templateID}/tags/count`)).body).toEqual({ total: 3 });
      expect((await r.get(`/templates/${templateID}/tags/stable/assignments`)).body).toEqual({ data: [assignment(b1)], nextCursor: null });
    } finally {
      await fromOlder.close();
    }
  });
});

describe("POST /v2/templates/{templateID}/builds/{buildID}: exactly one of fromImage and fromTemplate", () => {
  it("refuses none, both, or an empty one with 400; the build still waits and starts with one", async () => {
    const { templateID, buildID } = (await c.post("/v3/templates", { name: "one-source" })).body;
    const start = (body: Record<string, unknown>) => c.post(`/v2/templates/${templateID}/builds/${buildID}`, { steps: [], ...body });
    expect((await start({})).body).toEqual({ code: 400, message: "must specify either fromImage or fromTemplate" });
    expect((await start({ fromImage: "e2bdev/base", fromTemplate: "base" })).body).toEqual({ code: 400, message: "cannot specify both fromImage and fromTemplate" });
    expect((await start({ fromImage: "" })).body).toEqual({ code: 400, message: "fromImage must not be empty" });
    expect((await start({ fromTemplate: "  " })).body).toEqual({ code: 400, message: "fromTemplate must not be empty" });
    expect((await c.get(`/templates/${templateID}/builds/${buildID}/status`)).body.status).toBe("waiting");
    expect((await start({ fromTemplate: "base" })).status).toBe(202);
    expect((await buildFinished(c, templateID, buildID)).status).toBe("ready");
  });

  it("the official SDK's builds from an image and from a template both name one", async () => {
    const fromTemplate = await Template.build(Template().fromTemplate("base"), "one-source-sdk", opts);
    const status = (await c.get(`/templates/${fromTemplate.templateId}/builds/${fromTemplate.buildId}/status`)).body;
    expect(status.status).toBe("ready");
    expect(status.logEntries.filter((e: { step?: string }) => e.step === "base").map((e: { message: string }) => e.message)).toEqual(["FROM TEMPLATE base"]);
  });
});
