/**
 * Template on the current build system, through the provider's methods against the emulator: the
 * steps `check` derives from a Dockerfile and its context (buildSteps), what a changed file rebuilds
 * and uploads, tags and force, a build an interrupted run left, and the v1 path when asked for.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { filesHash } from "../../sdk/template-build";
import { PlatformClient } from "../../sdk/platform/client";
import { recordBuild } from "../../provider/kinds/template/record";
import { UNKNOWN } from "../../provider/spec";
import { callsSince, checked, checkReasons, emulatorForFile, lastSeq, rejection, rest, runtime } from "./harness";

const emu = emulatorForFile();
const ctx = mkdtempSync(join(tmpdir(), "template-context-"));
mkdirSync(join(ctx, "app"));
mkdirSync(join(ctx, "conf"));
writeFileSync(join(ctx, "app", "main.py"), "print('v1')\n");
writeFileSync(join(ctx, "conf", "settings.toml"), "mode = 'a'\n");
afterAll(() => rmSync(ctx, { recursive: true, force: true }));

const DOCKERFILE = "FROM python:3.12\n# the app\nCOPY app /app\nCOPY --chmod=644 conf/settings.toml /etc/app/\nRUN echo built\n";
// Only checked, never built: a CMD is a start command, which the emulator runs at finalize after
// a 20 s wait, over the host's programs (no `python` here, where the image has it).
const WITH_CMD = `${DOCKERFILE}CMD python /app/main.py\n`;
const buildsOf = (id: string) => emu().state.templates().find((t) => t.templateID === id)?.builds ?? [];
const uploads = (calls: string[]) => calls.filter((c) => c.startsWith("PUT /_uploads/")).length;
/** The PUT of a build's record (provider/kinds/template/record.ts), made once the build exists. */
const RECORD = expect.stringMatching(/^PUT \/_uploads\//);

describe("check derives the build steps", () => {
  test("one line per step as the service gets it, each COPY with the hash of its files", async () => {
    const inputs = await checked("Template", { dockerfile: WITH_CMD, context: ctx, __resource: "proj/dev/steps" });
    expect(inputs.buildSteps).toEqual([
      "FROM python:3.12",
      "USER root",
      "WORKDIR /",
      `COPY app /app (files ${filesHash("app", "/app", ctx)})`,
      `COPY --chmod=0644 conf/settings.toml /etc/app/ (files ${filesHash("conf/settings.toml", "/etc/app/", ctx)})`,
      "RUN echo built",
      "USER user",
      "WORKDIR /home/user",
      "CMD python /app/main.py",
    ]);
    expect(inputs).toMatchObject({ buildSystem: "v2", context: ctx });
    expect(inputs.force).toBeUndefined();
  });

  test("what the service cannot build fails naming the Dockerfile line, and nothing is sent", async () => {
    const since = lastSeq(emu());
    expect(await checkReasons("Template", { dockerfile: "FROM a\nRUN ok\nSHOUT hello\nCOPY app /app\n" })).toEqual([
      "dockerfile: line 3: SHOUT: is not an instruction the service can build (unknown instruction)",
    ]);
    expect(await checkReasons("Template", { dockerfile: "FROM a\nCOPY app /app\n" })).toEqual([
      "dockerfile: line 2: COPY: copies 'app' from the build context: set the `context` input to the directory that holds it",
    ]);
    expect(await checkReasons("Template", { dockerfile: "FROM a\n\nCOPY nothing-here /x\n", context: ctx })).toEqual([
      `dockerfile: line 3: COPY: 'nothing-here' matches no file in the context ${ctx}`,
    ]);
    expect(await checkReasons("Template", { dockerfile: "FROM a\n", context: join(ctx, "app", "main.py") })).toEqual([
      `context: ${join(ctx, "app", "main.py")} is not a directory`,
    ]);
    expect(await checkReasons("Template", { dockerfile: "FROM a\n", buildSystem: "v1", context: ctx, tags: ["x"], force: true })).toEqual([
      'context: needs the v2 build system (the v1 endpoints take only the Dockerfile text); remove it or drop buildSystem: "v1"',
      'tags: needs the v2 build system (the v1 endpoints take only the Dockerfile text); remove it or drop buildSystem: "v1"',
      'force: needs the v2 build system (the v1 endpoints take only the Dockerfile text); remove it or drop buildSystem: "v1"',
    ]);
    expect(await checkReasons("Template", { dockerfile: "FROM a\n", tags: ["default"] })).toEqual(["tags[0]: `default` is every build's own tag; list only the others"]);
    expect(callsSince(emu(), since)).toEqual([]);
  });

  test("an unknown Dockerfile or context at preview makes the steps unknown; v1 takes a Dockerfile that does not convert", async () => {
    expect((await checked("Template", { dockerfile: UNKNOWN, context: ctx })).buildSteps).toBe(UNKNOWN);
    expect((await checked("Template", { dockerfile: DOCKERFILE, context: UNKNOWN })).buildSteps).toBe(UNKNOWN);
    const v1 = await checked("Template", { dockerfile: "FROM a AS one\nFROM b\n", buildSystem: "v1" });
    expect(v1.buildSteps).toBeUndefined();
  });
});

describe("a template built from a context", () => {
  let inputs: Record<string, unknown>;
  let id: string;
  let outs: Record<string, unknown>;
  const check = (extra: Record<string, unknown> = {}) => checked("Template", { dockerfile: DOCKERFILE, context: ctx, __resource: "proj/dev/ctx", ...extra }, inputs);

  test("create uploads each COPY step's files once and builds them into the template sandboxes start from", async () => {
    inputs = await check();
    const since = lastSeq(emu());
    ({ id, outs } = await runtime.create("Template", inputs));
    const calls = callsSince(emu(), since, { writesOnly: true });
    const [build] = buildsOf(id);
    expect(calls.filter((c) => !c.startsWith("PUT"))).toEqual(["POST /v3/templates", `POST /v2/templates/${id}/builds/${build!.buildID}`]);
    expect(uploads(calls)).toBe(4); // the build's record, each COPY step's archive, then the template's claim
    expect(outs).toMatchObject({ templateID: id, buildStatus: "ready", buildSteps: inputs.buildSteps, buildSystem: "v2" });
    const made = await rest(emu(), "POST", "/sandboxes", { templateID: id, timeout: 60 });
    const { sandboxID } = (await made.json()) as { sandboxID: string };
    const root = emu().state.inventory().sandboxes.find((x) => x.sandboxID === sandboxID)!.rootDir;
    expect(readFileSync(join(root, "app", "main.py"), "utf8")).toBe("print('v1')\n");
    expect(readFileSync(join(root, "etc", "app", "settings.toml"), "utf8")).toBe("mode = 'a'\n");
    expect((await rest(emu(), "DELETE", `/sandboxes/${sandboxID}`)).status).toBe(204);
  });

  test("the same Dockerfile and context are no change", async () => {
    expect(await runtime.diff("Template", id, outs, await check())).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  });

  test("one edited file: a change of its COPY step only; the rebuild keeps the ID, gets a new build, uploads that file alone", async () => {
    writeFileSync(join(ctx, "app", "main.py"), "print('v2')\n");
    const news = await check();
    const before = outs.buildSteps as string[];
    const after = news.buildSteps as string[];
    expect(after.map((line, i) => (line === before[i] ? "same" : line))).toEqual([
      "same", "same", "same", `COPY app /app (files ${filesHash("app", "/app", ctx)})`, "same", "same", "same", "same",
    ]);
    expect(await runtime.diff("Template", id, outs, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const since = lastSeq(emu());
    const res = await runtime.update("Template", id, outs, news);
    const calls = callsSince(emu(), since);
    expect(uploads(calls)).toBe(2); // the build's record, and the changed step's archive alone
    expect(calls.filter((c) => c.startsWith("GET /templates/") && c.includes("/files/"))).toHaveLength(3); // the record's link, and both steps'
    expect(res.outs).toMatchObject({ templateID: id, buildCount: 2, buildStatus: "ready" });
    expect(res.outs.buildID).not.toBe(outs.buildID);
    outs = res.outs;
    inputs = news;
  });

  test("an edit of the Dockerfile's comments is an update that builds nothing", async () => {
    const news = await checked("Template", { dockerfile: `# a comment\n${DOCKERFILE}`, context: ctx, __resource: "proj/dev/ctx" }, inputs);
    expect(news.buildSteps).toEqual(outs.buildSteps);
    const since = lastSeq(emu());
    const res = await runtime.update("Template", id, outs, news);
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([]);
    expect(res.outs).toMatchObject({ buildID: outs.buildID, buildCount: 2 });
    outs = res.outs;
  });

  test("force: set to true rebuilds once (with the cache off); set back, it rebuilds nothing", async () => {
    const forced = await check({ force: true });
    let since = lastSeq(emu());
    outs = (await runtime.update("Template", id, outs, forced)).outs;
    expect(callsSince(emu(), since, { writesOnly: true }).filter((c) => c.startsWith("POST"))).toHaveLength(2);
    expect(buildsOf(id).map((b) => b.force)).toEqual([false, false, true]);
    since = lastSeq(emu());
    outs = (await runtime.update("Template", id, outs, await check({ force: false }))).outs;
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([]);
    expect(outs).toMatchObject({ buildCount: 3 });
  });

  test("tags move to the current build with the tag calls, never a rebuild", async () => {
    let since = lastSeq(emu());
    outs = (await runtime.update("Template", id, outs, await check({ tags: ["stable", "v3"] }))).outs;
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual(["POST /templates/tags"]);
    const tagged = (await new PlatformClient({ apiKey: emu().apiKey, apiUrl: emu().apiUrl }).builds.tags(id)).map((t) => [t.tag, t.buildID]);
    expect(tagged.sort()).toEqual([["default", outs.buildID], ["stable", outs.buildID], ["v3", outs.buildID]]);
    since = lastSeq(emu());
    outs = (await runtime.update("Template", id, outs, await check({ tags: ["stable"] }))).outs;
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual(["POST /templates/tags", "DELETE /templates/tags"]);
    expect(outs).toMatchObject({ tags: ["stable"], buildCount: 3 });
  });

  test("a start whose answer was lost is sent again and found started: one build", async () => {
    writeFileSync(join(ctx, "conf", "settings.toml"), "mode = 'b'\n");
    const news = await check({ tags: ["stable"] });
    // The start is handled, its answer dropped: armed once the upload is in (the second PUT: the first
    // is the build's record), off once the start is logged.
    let puts = 0;
    const stop = emu().onRequest((line) => {
      if (line.startsWith("PUT /_uploads/") && ++puts === 2) emu().setFaults({ dropAfterRate: 1 });
      if (line.startsWith(`POST /v2/templates/${id}/builds/`)) {
        emu().setFaults({});
        stop();
      }
    });
    try {
      outs = (await runtime.update("Template", id, outs, news)).outs;
    } finally {
      stop();
      emu().setFaults({});
    }
    const starts = emu().calls().filter((c) => c.method === "POST" && c.path.startsWith(`/v2/templates/${id}/builds/`)).slice(-2);
    expect(starts.map((c) => [c.status, c.fault])).toEqual([[202, "dropAfter"], [400, undefined]]);
    expect(outs).toMatchObject({ templateID: id, buildCount: 4, buildStatus: "ready" });
    expect(buildsOf(id).map((b) => b.status)).toEqual(["ready", "ready", "ready", "ready"]);
    await runtime.remove("Template", id, outs);
  });
});

describe("a build an interrupted run left waiting", () => {
  test("create adopts it: uploads, starts and waits for it, with no second build request", async () => {
    const inputs = await checked("Template", { dockerfile: DOCKERFILE, context: ctx, __resource: "proj/dev/adopt" });
    // What the killed run did before it died: the build request and its record, nothing after.
    const sdk = new PlatformClient({ apiKey: emu().apiKey, apiUrl: emu().apiUrl });
    const requested = await sdk.builds.request({ name: String(inputs.alias) });
    await recordBuild(requested, inputs, () => undefined);
    const since = lastSeq(emu());
    const { id, outs } = await runtime.create("Template", inputs);
    expect(id).toBe(requested.templateID);
    const calls = callsSince(emu(), since, { writesOnly: true });
    expect(calls.filter((c) => !c.startsWith("PUT"))).toEqual([`POST /v2/templates/${id}/builds/${requested.buildID}`]);
    expect(outs).toMatchObject({ buildID: requested.buildID, buildCount: 1, buildStatus: "ready" });
    await runtime.remove("Template", id, outs);
  });

  test("update adopts a rebuild the interrupted run requested: started, waited for, not requested again", async () => {
    const inputs = await checked("Template", { dockerfile: "FROM a\nRUN echo 1\n", __resource: "proj/dev/adopt-update" });
    const made = await runtime.create("Template", inputs);
    const news = await checked("Template", { dockerfile: "FROM a\nRUN echo 2\n", __resource: "proj/dev/adopt-update" }, inputs);
    const sdk = new PlatformClient({ apiKey: emu().apiKey, apiUrl: emu().apiUrl });
    const requested = await sdk.builds.request({ name: String(inputs.alias) });
    await recordBuild(requested, news, () => undefined);
    const since = lastSeq(emu());
    const { outs } = await runtime.update("Template", made.id, made.outs, news);
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([`POST /v2/templates/${made.id}/builds/${requested.buildID}`]);
    expect(outs).toMatchObject({ templateID: made.id, buildID: requested.buildID, buildCount: 2, buildStatus: "ready" });
    await runtime.remove("Template", made.id, outs);
  });

  test("create does not adopt a build recorded as made from other inputs: it builds again, from its own", async () => {
    const old = await checked("Template", { dockerfile: "FROM a\nRUN echo old\n", __resource: "proj/dev/edited" });
    const inputs = await checked("Template", { dockerfile: "FROM a\nRUN echo new\n", __resource: "proj/dev/edited" }); // edited after the kill
    const sdk = new PlatformClient({ apiKey: emu().apiKey, apiUrl: emu().apiUrl });
    const requested = await sdk.builds.request({ name: String(inputs.alias) });
    await recordBuild(requested, old, () => undefined);
    const since = lastSeq(emu());
    const { id, outs } = await runtime.create("Template", inputs);
    expect(id).toBe(requested.templateID);
    expect(callsSince(emu(), since, { writesOnly: true }).filter((c) => c.startsWith("POST"))).toEqual(["POST /v3/templates", `POST /v2/templates/${id}/builds/${outs.buildID}`]);
    expect(outs.buildID).not.toBe(requested.buildID);
    expect(outs).toMatchObject({ buildStatus: "ready", buildSteps: inputs.buildSteps });
    await runtime.remove("Template", id, outs);
  });

  test("update does not adopt a rebuild started from other inputs: it builds again, from its own", async () => {
    const inputs = await checked("Template", { dockerfile: "FROM a\nRUN echo 1\n", __resource: "proj/dev/edited-update" });
    const made = await runtime.create("Template", inputs);
    const killed = await checked("Template", { dockerfile: "FROM a\nRUN echo 2\n", __resource: "proj/dev/edited-update" }, inputs);
    const news = await checked("Template", { dockerfile: "FROM a\nRUN echo 3\n", __resource: "proj/dev/edited-update" }, inputs);
    const sdk = new PlatformClient({ apiKey: emu().apiKey, apiUrl: emu().apiUrl });
    const requested = await sdk.builds.request({ name: String(inputs.alias) });
    await recordBuild(requested, killed, () => undefined);
    const { outs } = await runtime.update("Template", made.id, made.outs, news);
    expect(outs.buildID).not.toBe(requested.buildID);
    expect(outs).toMatchObject({ templateID: made.id, buildCount: 3, buildStatus: "ready", buildSteps: news.buildSteps });
    await runtime.remove("Template", made.id, outs);
  });

  test("a chosen alias another template holds is refused before any build request", async () => {
    const sdk = new PlatformClient({ apiKey: emu().apiKey, apiUrl: emu().apiUrl });
    const other = await sdk.builds.request({ name: "held-by-another" });
    const inputs = await checked("Template", { dockerfile: "FROM a\n", alias: "held-by-another", __resource: "proj/dev/held" });
    const since = lastSeq(emu());
    const err = await rejection(runtime.create("Template", inputs));
    expect(err.message).toBe(
      `alias "held-by-another" is already the template ${other.templateID} of your team, and a build under that name would replace its ` +
        "content. Choose another alias, or delete that template first.",
    );
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([]);
  });
});

describe("buildSystem v1, when asked for", () => {
  test("creates with POST /templates and rebuilds with POST /templates/{id}, the Dockerfile's text in the body", async () => {
    const inputs = await checked("Template", { dockerfile: "FROM ubuntu:22.04\n", buildSystem: "v1", __resource: "proj/dev/legacy" });
    let since = lastSeq(emu());
    const { id, outs } = await runtime.create("Template", inputs);
    // The build's record, then the claim of the template (provider/kinds/template/claim.ts).
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual(["POST /templates", RECORD, RECORD]);
    const news = await checked("Template", { dockerfile: "FROM ubuntu:22.04\n# the text is what v1 sends\n", buildSystem: "v1", __resource: "proj/dev/legacy" }, inputs);
    since = lastSeq(emu());
    const res = await runtime.update("Template", id, outs, news);
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([`POST /templates/${id}`, RECORD]);
    expect(res.outs).toMatchObject({ templateID: id, buildCount: 2, buildSystem: "v1" });
    await runtime.remove("Template", id, res.outs);
  });
});
