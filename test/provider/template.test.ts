/** Template: the provider's methods called directly against the emulator (builds take ~50 ms there). */
import { describe, expect, test } from "vitest";
import { UNKNOWN } from "../../provider/spec";
import {
  callsSince, checked, checkReasons, emulatorForFile, expectPlainJSON, lastSeq, PROVIDER_TEXT, rejection, rest, runtime,
} from "./harness";

const emu = emulatorForFile();
// Its RUN runs in the emulator's build sandbox, over the host's programs: nothing it needs is installed.
const DOCKERFILE = "FROM ubuntu:22.04\nRUN mkdir -p /opt/tools\n";

/** The PUT of a build's record (provider/kinds/template/record.ts), made once the build exists. */
const RECORD = expect.stringMatching(/^PUT \/_uploads\//);
const buildsOf = (id: string) => emu().state.templates().find((t) => t.templateID === id)?.builds ?? [];

describe("check", () => {
  test("defaults: private, a 20-minute build deadline and a stable alias from the resource name", async () => {
    const inputs = await checked("Template", { dockerfile: DOCKERFILE, __resource: "proj/dev/Web_App" });
    expect(inputs).toMatchObject({ dockerfile: DOCKERFILE, public: false, buildTimeoutSeconds: 1200, __generation: 0, __auto: ["alias"] });
    expect(inputs.alias).toMatch(/^web_app-[0-9a-f]{8}$/);
    expect((await checked("Template", { dockerfile: "FROM alpine", __resource: "proj/dev/Web_App" })).alias).toBe(inputs.alias);
  });

  test("each failure names the field and the rule", async () => {
    expect(await checkReasons("Template", { dockerfile: "RUN make", cpuCount: 3, memoryMB: 100, alias: "Web App" })).toEqual([
      "dockerfile: must contain a FROM instruction (the base image)",
      "alias: may contain only lowercase letters, digits, '_' and '-' (pattern ^[a-z0-9_-]+$)",
      "cpuCount: must be 1 or an even number",
      "memoryMB: must be at least 128 (MiB)",
    ]);
    expect(await checkReasons("Template", {})).toEqual(["dockerfile: is required"]);
    // A value of the wrong type is not a missing one.
    expect(await checkReasons("Template", { dockerfile: "FROM a", public: "yes" })).toEqual(["public: must be true or false"]);
  });

  test("values not known until apply (preview) pass; the known ones are still checked and defaulted", async () => {
    const inputs = await checked("Template", { dockerfile: UNKNOWN, alias: UNKNOWN, __resource: "proj/dev/t" });
    expect(inputs).toMatchObject({ dockerfile: UNKNOWN, alias: UNKNOWN, public: false });
    expect(await checkReasons("Template", { dockerfile: UNKNOWN, cpuCount: 3 })).toEqual(["cpuCount: must be 1 or an even number"]);
  });
});

describe("lifecycle", () => {
  let inputs: Record<string, unknown>;
  let id: string;
  let outs: Record<string, unknown>;

  test("create registers the template, waits for its build and reports it", async () => {
    inputs = await checked("Template", { dockerfile: DOCKERFILE, __resource: "proj/dev/web" });
    ({ id, outs } = await runtime.create("Template", inputs));
    const builds = buildsOf(id);
    expect(builds.map((b) => b.status)).toEqual(["ready"]);
    expect(outs).toMatchObject({
      templateID: id, buildID: builds[0]!.buildID, latestBuildID: builds[0]!.buildID, buildStatus: "ready", public: false,
      aliases: [inputs.alias], buildCount: 1, cpuCount: 2, memoryMB: 1024, dockerfile: DOCKERFILE, __provider: PROVIDER_TEXT,
    });
    expect(outs.lastBuildError).toBeUndefined();
    expectPlainJSON(outs);
  });

  test("diff: the same inputs (service defaults left out) are no change; public is an update; teamID replaces", async () => {
    expect(await runtime.diff("Template", id, outs, inputs)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect(await runtime.diff("Template", id, outs, { ...inputs, public: true })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(await runtime.diff("Template", id, outs, { ...inputs, teamID: "another-team" })).toMatchObject({ changes: true, replaces: ["teamID"] });
  });

  test("read: no drift when nothing changed; a template made public through the API reads public: true", async () => {
    const same = await runtime.read("Template", id, outs);
    expect(same.id).toBe(id);
    expect(await runtime.diff("Template", id, same.props!, inputs)).toMatchObject({ changes: false });
    expect((await rest(emu(), "PATCH", `/v2/templates/${id}`, { public: true })).status).toBe(200);
    const drifted = await runtime.read("Template", id, outs);
    expect(drifted.props).toMatchObject({ public: true, buildID: outs.buildID });
    expectPlainJSON(drifted.props);
    // The program still says private: the next `up` is an in-place update back.
    expect(await runtime.diff("Template", id, drifted.props!, inputs)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    outs = drifted.props!;
  });

  test("update of public alone is exactly one PATCH and no rebuild", async () => {
    const since = lastSeq(emu());
    const res = await runtime.update("Template", id, outs, inputs);
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([`PATCH /v2/templates/${id}`]);
    expect(res.outs).toMatchObject({ public: false, buildID: outs.buildID, buildCount: 1 });
    expect(emu().state.templates().find((t) => t.templateID === id)?.public).toBe(false);
    outs = res.outs;
  });

  test("update of the Dockerfile rebuilds the same template (a v3 request under its alias, then the v2 start) and waits for the build", async () => {
    const since = lastSeq(emu());
    const news = await checked("Template", { dockerfile: "FROM ubuntu:24.04\n", __resource: "proj/dev/web" }, inputs);
    expect(await runtime.diff("Template", id, outs, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const res = await runtime.update("Template", id, outs, news);
    const second = buildsOf(id)[1]!.buildID;
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual(["POST /v3/templates", RECORD, `POST /v2/templates/${id}/builds/${second}`]);
    const builds = buildsOf(id);
    expect(builds.map((b) => b.status)).toEqual(["ready", "ready"]);
    expect(res.outs).toMatchObject({ templateID: id, buildCount: 2, buildStatus: "ready", dockerfile: "FROM ubuntu:24.04\n" });
    expect(res.outs.buildID).not.toBe(outs.buildID);
    expect([outs.buildID, res.outs.buildID].sort()).toEqual(builds.map((b) => b.buildID).sort());
    outs = res.outs;
  });

  test("delete removes it; deleting it again succeeds (404 is done); read then reports it gone", async () => {
    await runtime.remove("Template", id, outs);
    expect(buildsOf(id)).toEqual([]);
    const since = lastSeq(emu());
    await runtime.remove("Template", id, outs);
    expect(emu().calls(since).map((c) => [c.method, c.status])).toEqual([["DELETE", 404]]);
    expect(await runtime.read("Template", id, outs)).toEqual({});
  });
});

describe("a failed build is recorded, not lost", () => {
  let inputs: Record<string, unknown>;
  let partial: Awaited<ReturnType<typeof rejection>>;

  test("create throws an error carrying the template's ID and outputs, with the reason and the last log lines", async () => {
    inputs = await checked("Template", { dockerfile: "FROM ubuntu:22.04\nRUN echo preparing; exit 3\n", __resource: "proj/dev/broken" });
    partial = await rejection(runtime.create("Template", inputs));
    const [template] = emu().state.templates().filter((t) => t.aliases.includes(String(inputs.alias)));
    expect(partial.id).toBe(template!.templateID);
    // Step 3: the v2 steps open with USER root and WORKDIR / (Docker's defaults); the message names it.
    expect(partial.message).toMatch(new RegExp(`^Template ${partial.id} build [0-9a-f-]+ failed at step 3: `));
    expect(partial.message).toMatch(/\nStep 3 is: RUN echo preparing; exit 3$/);
    expect(partial.message).toContain("failed to run command 'echo preparing; exit 3': exit status 3");
    expect(partial.message).toMatch(/\nLast log lines:\n.*\[error\] failed to run command 'echo preparing; exit 3': exit status 3\n/);
    expect(partial.reasons).toEqual([partial.message]);
    expect(partial.properties).toMatchObject({ templateID: partial.id, buildStatus: "error", buildID: "", __provider: PROVIDER_TEXT });
    expect(partial.properties?.lastBuildError).toContain("exit status 3");
    expectPlainJSON(partial.properties, "properties");
  });

  test("read (refresh) of the recorded template reports the failed build", async () => {
    const res = await runtime.read("Template", partial.id!, partial.properties!);
    expect(res).toMatchObject({ id: partial.id, props: { buildStatus: "error", buildID: "", lastBuildError: partial.properties!.lastBuildError } });
    expectPlainJSON(res.props);
  });

  test("update on those outputs with the same inputs rebuilds (and fails again, still recorded)", async () => {
    const since = lastSeq(emu());
    const again = await rejection(runtime.update("Template", partial.id!, partial.properties!, inputs));
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual(["POST /v3/templates", RECORD, `POST /v2/templates/${partial.id}/builds/${buildsOf(partial.id!)[1]!.buildID}`]);
    expect(again).toMatchObject({ id: partial.id });
    expect(again.message).toContain("exit status 3");
    expect(again.properties).toMatchObject({ buildStatus: "error", buildCount: 2, __provider: PROVIDER_TEXT });
  });

  test("update with a fixed Dockerfile rebuilds the same template to ready", async () => {
    const news = await checked("Template", { dockerfile: "FROM ubuntu:22.04\nRUN echo fixed\n", __resource: "proj/dev/broken" }, inputs);
    const res = await runtime.update("Template", partial.id!, partial.properties!, news);
    expect(res.outs).toMatchObject({ templateID: partial.id, buildStatus: "ready", buildCount: 3 });
    expect(res.outs.lastBuildError).toBeUndefined();
    expect(buildsOf(partial.id!).map((b) => b.status)).toEqual(["error", "error", "ready"]);
    // A refresh of state that still says the build failed (an update made elsewhere) drops the stale error.
    const refreshed = await runtime.read("Template", partial.id!, partial.properties!);
    expect(refreshed.props).toMatchObject({ buildStatus: "ready" });
    expect(refreshed.props?.lastBuildError).toBeUndefined();
    await runtime.remove("Template", partial.id!, res.outs);
  });
});

describe("delete while sandboxes use the template", () => {
  test("surfaces the service's refusal and says what to do; succeeds once the sandbox is gone", async () => {
    const inputs = await checked("Template", { dockerfile: DOCKERFILE, __resource: "proj/dev/in-use" });
    const { id, outs } = await runtime.create("Template", inputs);
    const made = await rest(emu(), "POST", "/sandboxes", { templateID: id, timeout: 60 });
    expect(made.status).toBe(201);
    const { sandboxID } = (await made.json()) as { sandboxID: string };
    const refused = await rejection(runtime.remove("Template", id, outs));
    expect(refused.message).toBe(
      `cannot delete template '${id}' because there are running sandboxes using it. ` +
        "Delete those sandboxes (or let them expire), then run `pulumi destroy` again.",
    );
    expect(buildsOf(id)).toHaveLength(1);
    expect((await rest(emu(), "DELETE", `/sandboxes/${sandboxID}`)).status).toBe(204);
    await runtime.remove("Template", id, outs);
    expect(buildsOf(id)).toEqual([]);
  });
});
