import { beforeAll, describe, expect, test } from "vitest";
import type { Emulator } from "../../emulator";
import { buildFinished, DOCKERFILE, requestBuild, useEmulator, waitFor, type Client } from "./platform-helpers";

const fastEnv = useEmulator();
// Slow enough that `waiting` (the first fifth) outlasts a loaded machine's round trip.
const slowEnv = useEmulator({ buildDelayMs: 3000 });
let c: Client;
let s: Client;
let fast: Emulator;

beforeAll(() => {
  ({ c, emu: fast } = fastEnv);
  s = slowEnv.c;
});

const status = (cl: Client, t: string, b: string, query = "") => cl.get(`/templates/${t}/builds/${b}/status${query}`);

describe("build timer", () => {
  test("waiting → building → ready; sandboxes wait for the first ready build", async () => {
    const { templateID, buildID } = await requestBuild(s, { dockerfile: DOCKERFILE, alias: "timed" });
    const first = await status(s, templateID, buildID);
    expect(first.body).toEqual({ templateID, buildID, status: "waiting", logs: [], logEntries: [] });
    const early = await s.post("/sandboxes", { templateID: "timed" });
    expect(early.status).toBe(404);
    expect(early.body.message).toBe("tag 'default' does not exist for template 'timed'");
    await waitFor("building", async () => ((await status(s, templateID, buildID)).body.status === "building" ? true : undefined));
    const done = await buildFinished(s, templateID, buildID);
    expect(done.status).toBe("ready");
    expect(done).not.toHaveProperty("reason");
    expect((await s.post("/sandboxes", { templateID: "timed" })).status).toBe(201);
  });

  test("about one log entry per instruction, with steps, readable by logsOffset pages", async () => {
    const { templateID, buildID } = await requestBuild(c, { dockerfile: DOCKERFILE, startCmd: "npm start", readyCmd: "curl localhost" });
    await buildFinished(c, templateID, buildID);
    const all = (await status(c, templateID, buildID)).body.logEntries;
    expect(all.map((e: { step?: string }) => e.step)).toEqual([undefined, "base", "1", "2", "3", "finalize", "finalize", "finalize", undefined]);
    expect(all[1].message).toBe("FROM ubuntu:22.04");
    expect(all[2].message).toBe("[1/3] RUN apt-get update && apt-get install -y curl");
    expect(all[6].message).toBe("Running start command: npm start");
    expect(all[7].message).toBe("Waiting for ready command: curl localhost");
    expect(all.at(-1).message).toMatch(/^Build finished, took \d+s$/);
    expect(all.every((e: { level: string; timestamp: string }) => e.level === "info" && !Number.isNaN(Date.parse(e.timestamp)))).toBe(true);
    const paged: unknown[] = [];
    for (let offset = 0; ; ) {
      const page = (await status(c, templateID, buildID, `?logsOffset=${offset}&limit=4`)).body.logEntries;
      if (page.length === 0) break;
      expect(page.length).toBeLessThanOrEqual(4);
      paged.push(...page);
      offset += page.length;
    }
    expect(paged).toEqual(all);
  });

  test("a RUN step `exit N` fails the build at that step, with error entries and a reason", async () => {
    const dockerfile = "FROM alpine\nRUN echo ok\nRUN exit 3\nRUN echo never\n";
    const { templateID, buildID } = await requestBuild(c, { dockerfile });
    const info = await buildFinished(c, templateID, buildID);
    expect(info.status).toBe("error");
    expect(info.reason).toEqual({
      message: "failed to run command 'exit 3': exit status 3",
      step: "2",
      logEntries: [
        { timestamp: expect.any(String), level: "error", step: "2", message: "command 'exit 3' exited with code 3" },
        { timestamp: expect.any(String), level: "error", step: "2", message: "failed to run command 'exit 3': exit status 3" },
      ],
    });
    expect(info.logEntries.some((e: { message: string }) => e.message.includes("never"))).toBe(false);
    const errorsOnly = (await status(c, templateID, buildID, "?level=error")).body.logEntries;
    expect(errorsOnly).toHaveLength(2);
    const sandbox = await c.post("/sandboxes", { templateID });
    expect(sandbox.body.message).toBe(`tag 'default' does not exist for template '${templateID}'`);
  });

  test("`RUN false` fails with exit status 1", async () => {
    const { templateID, buildID } = await requestBuild(c, { dockerfile: "FROM alpine\nRUN false\n" });
    const info = await buildFinished(c, templateID, buildID);
    expect(info.reason).toMatchObject({ message: "failed to run command 'false': exit status 1", step: "1" });
  });

  test("a Dockerfile without FROM fails at the base step", async () => {
    const { templateID, buildID } = await requestBuild(c, { dockerfile: "# nothing\nRUN echo hi\n" });
    const info = await buildFinished(c, templateID, buildID);
    expect(info.status).toBe("error");
    expect(info.reason).toMatchObject({ message: "Dockerfile must start with a FROM instruction", step: "base" });
    expect(info.logEntries.at(-1)).toMatchObject({ level: "error", step: "base", message: "Dockerfile must start with a FROM instruction" });
  });

  test("an unknown instruction fails its step", async () => {
    const { templateID, buildID } = await requestBuild(c, { dockerfile: "FROM alpine\nFROBNICATE now\n" });
    const info = await buildFinished(c, templateID, buildID);
    expect(info.reason).toMatchObject({ message: "unknown instruction: FROBNICATE (line 2)", step: "1" });
  });
});

describe("v2 start", () => {
  test("a started build reports building at once, not waiting", async () => {
    const req = await s.post("/v3/templates", { name: "started-v2" });
    expect((await status(s, req.body.templateID, req.body.buildID)).body.status).toBe("waiting");
    const started = await s.post(`/v2/templates/${req.body.templateID}/builds/${req.body.buildID}`, { fromImage: "e2bdev/base", steps: [] });
    expect(started.status).toBe(202);
    expect((await status(s, req.body.templateID, req.body.buildID)).body.status).toBe("building");
  });
});

describe("rebuilds", () => {
  test("keep the template ID; buildID is the last successful build; a failed rebuild keeps the old one", async () => {
    const first = await requestBuild(c, { dockerfile: DOCKERFILE, alias: "rebuilt", cpuCount: 1, memoryMB: 256 });
    await buildFinished(c, first.templateID, first.buildID);
    const second = await requestBuild(c, { dockerfile: "FROM alpine\nRUN exit 1\n", cpuCount: 4, memoryMB: 2048 }, first.templateID);
    expect(second.templateID).toBe(first.templateID);
    expect(second.buildID).not.toBe(first.buildID);
    expect(second.buildID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await buildFinished(c, first.templateID, second.buildID);
    const listed = (await c.get("/templates")).body.find((t: { templateID: string }) => t.templateID === first.templateID);
    expect(listed).toMatchObject({ buildID: first.buildID, buildCount: 2, buildStatus: "error", cpuCount: 1, memoryMB: 256 });
    const sandbox = await c.post("/sandboxes", { templateID: "rebuilt" });
    expect(sandbox.status).toBe(201);
    expect((await c.get(`/sandboxes/${sandbox.body.sandboxID}`)).body).toMatchObject({ cpuCount: 1, memoryMB: 256 });
    const third = await requestBuild(c, { dockerfile: DOCKERFILE, startCmd: "serve" }, first.templateID);
    await buildFinished(c, first.templateID, third.buildID);
    const detail = (await c.get(`/templates/${first.templateID}`)).body;
    expect(detail.builds.map((b: { buildID: string }) => b.buildID)).toEqual([third.buildID, second.buildID, first.buildID]);
    expect(detail.builds[1]).toMatchObject({ status: "error", cpuCount: 4, memoryMB: 2048, finishedAt: expect.any(String) });
    expect(detail.builds[0]).toMatchObject({ status: "ready", cpuCount: 2, memoryMB: 1024, diskSizeMB: 5120, envdVersion: "0.6.4" });
    const inv = fast.state.templates().find((t) => t.templateID === first.templateID)!;
    expect(inv.builds.map((b) => b.startCmd)).toEqual([null, null, "serve"]);
  });

  test("a new build cancels the one in flight", async () => {
    const a = await requestBuild(s, { dockerfile: DOCKERFILE });
    const b = await requestBuild(s, { dockerfile: DOCKERFILE }, a.templateID);
    const cancelled = (await status(s, a.templateID, a.buildID)).body;
    expect(cancelled.status).toBe("error");
    expect(cancelled.reason).toEqual({ message: "The build was canceled because it was superseded by a newer one." });
    expect((await status(s, b.templateID, b.buildID)).body.status).toBe("waiting");
  });
});

describe("GET /templates/{id}/builds/{buildID}/status errors", () => {
  test("unknown build → 400; bad IDs and limits → 400; unknown template → 404", async () => {
    const { templateID, buildID } = await requestBuild(c, { dockerfile: DOCKERFILE });
    const unknown = "7b2e1b52-7f1c-4a5e-9d0e-2f1f7e0b9a11";
    expect((await status(c, templateID, unknown)).body).toEqual({ code: 400, message: `Build '${unknown}' not found` });
    expect((await status(c, templateID, "nope")).body).toEqual({ code: 400, message: "Invalid build id" });
    // The build ID is parsed first: a malformed one is a 400 even for a template that does not exist.
    expect((await status(c, "nosuchtemplate", "nope")).body).toEqual({ code: 400, message: "Invalid build id" });
    expect((await status(c, templateID, buildID, "?limit=101")).body.message).toBe(
      'validation error: parameter "limit" in query has an error: number must be at most 100',
    );
    expect((await status(c, "nosuchtemplate", buildID)).body).toEqual({ code: 404, message: "Template 'nosuchtemplate' not found" });
    expect((await status(c, templateID, buildID, "")).status).toBe(200);
  });
});
