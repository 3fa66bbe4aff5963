/**
 * The current build system through the sdk (sdk/template-build) against the emulator: each call with the
 * service's codes and messages, the upload URL's object-store rules, tags, and a whole Dockerfile
 * build whose files reach a sandbox's root, and an upload refused when the files moved on since they
 * were planned.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { contextArchive, dockerfileToSteps, filesHash, listContextFiles, planFiles, uploadMissing } from "../../sdk/template-build";
import type { TemplateBuildStartV2 } from "../../sdk/schemas/builds";
import { PlatformClient } from "../../sdk/platform/client";
import { failure } from "./expect-error";

let emu: Emulator;
let sdk: PlatformClient;
let ctx: string;

beforeAll(async () => {
  emu = await createEmulator({ buildDelayMs: 100 });
  sdk = new PlatformClient({ apiUrl: emu.apiUrl, apiKey: emu.apiKey, retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10 } }, {});
  ctx = mkdtempSync(join(tmpdir(), "sdk-builds-"));
  mkdirSync(join(ctx, "site"));
  writeFileSync(join(ctx, "site", "index.html"), "<h1>hi</h1>\n");
});
afterAll(async () => {
  await sdk.close();
  await emu.close();
  rmSync(ctx, { recursive: true, force: true });
});

/** The sequence of docs/service.md#build-sequence: request, plan the files, upload what is missing, start, wait. */
async function buildThrough(name: string, build: TemplateBuildStartV2) {
  const { templateID, buildID } = await sdk.builds.request({ name });
  const files = planFiles(build.steps ?? [], ctx);
  const { uploaded } = await uploadMissing(sdk.builds, templateID, files.copies);
  await sdk.builds.start(templateID, buildID, { ...build, steps: files.steps });
  await sdk.templates.waitForBuild(templateID, buildID, { intervalMs: 20 });
  return { templateID, buildID, uploaded };
}

describe("the calls", () => {
  test("request → 202 waiting build; start twice → 400 'build is not in waiting state'", async () => {
    const req = await sdk.builds.request({ name: "calls:v1", cpuCount: 2, memoryMB: 512 });
    expect(req).toMatchObject({ names: ["emulator/calls"], aliases: ["calls"], tags: ["v1"], public: false });
    expect((await sdk.templates.buildStatus(req.templateID, req.buildID)).status).toBe("waiting");
    await sdk.builds.start(req.templateID, req.buildID, { fromImage: "alpine", steps: [{ type: "ENV", args: ["A", "1"] }] });
    const again = await failure(sdk.builds.start(req.templateID, req.buildID, { fromImage: "alpine" }));
    expect(again).toMatchObject({ status: 400, code: "invalid_argument", message: "POST /v2/templates/{templateID}/builds/{buildID} failed (400 invalid_argument): build is not in waiting state" });
    await sdk.templates.waitForBuild(req.templateID, req.buildID, { intervalMs: 20 });
    const unknown = await failure(sdk.builds.start(req.templateID, "6b0c2bb8-4f64-4c8e-9f43-9b1ad3ea4a9e", {}));
    expect(unknown).toMatchObject({ status: 404, message: expect.stringContaining("Build '6b0c2bb8-4f64-4c8e-9f43-9b1ad3ea4a9e' not found") });
  });

  test("files link: 400 on a bad hash, 404 on an unknown template, present once uploaded", async () => {
    const { templateID } = await sdk.builds.request({ name: "files" });
    expect(() => sdk.builds.fileUploadLink(templateID, "ABC")).toThrow("files hash must be 64 lowercase hex characters, got \"ABC\"");
    const raw = await request(`${emu.apiUrl}/templates/${templateID}/files/abc`, { headers: { "x-api-key": emu.apiKey } });
    expect([raw.statusCode, await raw.body.json()]).toEqual([400, { code: 400, message: "Invalid files hash" }]);
    const hash = filesHash("site", "/srv/", ctx);
    expect((await failure(sdk.builds.fileUploadLink("nosuchtemplate", hash))).status).toBe(404);
    const link = await sdk.builds.fileUploadLink(templateID, hash);
    expect(link.present).toBe(false);
    await sdk.builds.upload(link.url!, contextArchive(listContextFiles("site", ctx)));
    expect((await sdk.builds.fileUploadLink(templateID, hash)).present).toBe(true);
  });

  test("the upload URL answers as an object store: a chunked PUT is a 501, an unknown token a 403", async () => {
    const { templateID } = await sdk.builds.request({ name: "uploads" });
    const link = await sdk.builds.fileUploadLink(templateID, "a".repeat(64));
    // A stream of unknown length goes out chunked, with no Content-Length.
    const chunked = await request(link.url!, { method: "PUT", body: Readable.from([Buffer.from("x")]) });
    expect(chunked.statusCode).toBe(501);
    expect(await chunked.body.text()).toContain("<Code>NotImplemented</Code>");
    const forged = await request(`${emu.apiUrl}/_uploads/forged`, { method: "PUT", body: "x" });
    expect(forged.statusCode).toBe(403);
    await forged.body.dump();
  });

  test("tags: assign → 201, list, remove; `default` cannot be removed", async () => {
    const first = await buildThrough("tagged", { fromImage: "alpine", steps: [] });
    const assigned = await sdk.builds.assignTags("tagged", ["prod", "v2"]);
    expect(assigned).toEqual({ tags: ["prod", "v2"], buildID: first.buildID });
    expect((await sdk.builds.tags(first.templateID)).map((t) => [t.tag, t.buildID])).toEqual([
      ["default", first.buildID], ["prod", first.buildID], ["v2", first.buildID],
    ]);
    await sdk.builds.removeTags("tagged", ["v2"]);
    expect((await sdk.builds.tags(first.templateID)).map((t) => t.tag)).toEqual(["default", "prod"]);
    const removeDefault = await failure(sdk.builds.removeTags("tagged", ["default"]));
    expect(removeDefault).toMatchObject({ status: 400, message: expect.stringContaining("the 'default' tag cannot be deleted") });
    const sandbox = await sdk.sandboxes.create({ templateID: "tagged:prod", timeout: 60 });
    await sdk.sandboxes.kill(sandbox.sandboxID);
    expect((await failure(sdk.sandboxes.create({ templateID: "tagged:v2" }))).message).toContain("tag 'v2' does not exist for template 'tagged'");
  });
});

describe("a Dockerfile build end to end", () => {
  test("only missing archives are uploaded; the sandbox root holds the files; a failing RUN names its step", async () => {
    const build = dockerfileToSteps("FROM nginx\nCOPY site /usr/share/nginx/html\nENV PORT=8080\nRUN exit 2");
    const failed = await failure(buildThrough("web", { fromImage: build.fromImage, steps: build.steps }));
    expect(failed).toMatchObject({ code: "build_failed" });
    expect(failed.message).toMatch(/failed at step 5: failed to run command 'exit 2': exit status 2/);
    const steps = build.steps.filter((s) => s.type !== "RUN");
    const ok = await buildThrough("web", { fromImage: build.fromImage, steps });
    expect(ok.uploaded).toEqual([]);
    const sandbox = await sdk.sandboxes.create({ templateID: "web", timeout: 60 });
    const root = join(emu.dataDir, "sandboxes", sandbox.sandboxID);
    expect(readFileSync(join(root, "usr/share/nginx/html/index.html"), "utf8")).toBe("<h1>hi</h1>\n");
    expect((await sdk.sandboxes.get(sandbox.sandboxID)).templateID).toBe(ok.templateID);
    await sdk.sandboxes.kill(sandbox.sandboxID);
  });
});

describe("an upload of planned files", () => {
  test("files changed since the plan are refused, naming the first, with nothing sent", async () => {
    mkdirSync(join(ctx, "up"));
    writeFileSync(join(ctx, "up", "a.txt"), "a\n");
    writeFileSync(join(ctx, "up", "b.txt"), "b\n");
    const planned = planFiles([{ type: "COPY", args: ["up", "/up"] }], ctx);
    const { templateID } = await sdk.builds.request({ name: "planned" });
    writeFileSync(join(ctx, "up", "b.txt"), "b, edited\n");
    const refused = await failure(uploadMissing(sdk.builds, templateID, planned.copies));
    expect(refused).toMatchObject({ code: "conflict" });
    expect(refused.message).toBe(
      `COPY up: up/b.txt changed since its files were hashed (files ${planned.copies[0]!.filesHash}); nothing of it was uploaded. ` +
        "Plan the build again to upload the files as they are now.",
    );
    expect((await sdk.builds.fileUploadLink(templateID, planned.copies[0]!.filesHash)).present).toBe(false);
    writeFileSync(join(ctx, "up", "b.txt"), "b\n");
    const sent = await uploadMissing(sdk.builds, templateID, planFiles([{ type: "COPY", args: ["up", "/up"] }], ctx).copies);
    expect(sent.uploaded).toEqual([planned.copies[0]!.filesHash]);
  });
});
