/**
 * A TemplateTag create, and a Template create under a chosen alias, run again after the first attempt
 * made its change but never reached the state (a killed `up`, an answer lost): the re-run checks the
 * resource anew (a new nonce, the same key and generation) and must take what it finds as its own,
 * while what another resource, stack or person made is still refused.
 *   - TemplateTag: the create marks "this resource points this tag at this build" in the template's
 *     file cache before its tag call, and claims it once it finished; a tag found on the build the
 *     target names, with that mark and no claim, is this resource's (provider/kinds/template-tag/template-tag.ts).
 *   - Template: the build record (provider/kinds/template/record.ts) names the resource it was made
 *     for; a chosen alias whose template's build is so recorded for this resource is adopted.
 * Through the real engine: e2e template-tag.test.ts (an `up` killed as its tag call is answered).
 */
import { describe, expect, test } from "vitest";
import { PlatformClient } from "../../sdk/platform/client";
import { recordBuild } from "../../provider/kinds/template/record";
import { ENGINE_GONE, runAsOperation } from "../../provider/runtime/operation";
import { callsSince, capturedStderr, checked, emulatorForFile, lastSeq, rejection, rest, runtime } from "./harness";

const emu = emulatorForFile();
const stderr = capturedStderr();

type Obj = Record<string, unknown>;

/** The template's tags as the service lists them: tag → build. */
async function tagsOf(templateID: string): Promise<Record<string, string>> {
  const res = await rest(emu(), "GET", `/templates/${templateID}/tags`);
  expect(res.status).toBe(200);
  return Object.fromEntries(((await res.json()) as { tag: string; buildID: string }[]).map((t) => [t.tag, t.buildID]));
}

/**
 * Runs `create` as a killed `up` does: the engine goes away once the tag call is answered, so the create
 * ends without its claim (provider/kinds/template-tag/template-tag.ts claimTag), as its provider, living
 * on, sees it.
 */
async function asKilledRun(create: () => Promise<unknown>): Promise<void> {
  const controller = new AbortController();
  const stop = emu().onRequest((line) => void (line.startsWith("POST /templates/tags ") && controller.abort(new Error(ENGINE_GONE))));
  try {
    await runAsOperation({ signal: controller.signal, why: () => ENGINE_GONE }, create);
  } finally {
    stop();
  }
  expect(controller.signal.aborted).toBe(true);
}

/** A template built into `v1`, then `v2`: its ID, alias and the two builds. */
async function twoBuilds(key: string): Promise<{ id: string; alias: string; v1: string; v2: string }> {
  const given = { dockerfile: "FROM python:3.12\nRUN echo one\n", tags: ["v1"], __resource: key };
  const first = await checked("Template", given);
  const t = await runtime.create("Template", first);
  const second = await runtime.update("Template", t.id, t.outs, await checked("Template", { ...given, dockerfile: "FROM python:3.12\nRUN echo two\n", tags: ["v2"] }, first));
  return { id: t.id, alias: String(t.outs.alias), v1: String(t.outs.buildID), v2: String(second.outs.buildID) };
}

describe("a TemplateTag create run again", () => {
  test("whose answer was lost: the sdk repeats the tag call (it sets, not adds), and the create ends with the one tag", async () => {
    const t = await twoBuilds("proj/dev/lost-tag-app");
    // The answer of the first tag call is dropped: on from the mark's upload (the call before it), off at the tag call.
    let armed = false;
    const stop = emu().onRequest((line) => {
      if (line.startsWith("PUT /_uploads/") && !armed) emu().setFaults({ dropAfterRate: 1 });
      if (line.startsWith("PUT /_uploads/")) armed = true;
      if (line.startsWith("POST /templates/tags ")) emu().setFaults({});
    });
    let made: { id: string; outs: Obj };
    try {
      made = await runtime.create("TemplateTag", await checked("TemplateTag", { template: t.alias, tag: "prod", target: "v1", __resource: "proj/dev/lost-tag" }));
    } finally {
      stop();
    }
    expect(made.outs).toMatchObject({ templateID: t.id, buildID: t.v1 });
    expect(emu().calls().filter((c) => c.method === "POST" && c.path === "/templates/tags").slice(-2).map((c) => c.fault)).toEqual(["dropAfter", undefined]);
    expect((await tagsOf(t.id)).prod).toBe(t.v1);
    await runtime.remove("TemplateTag", made.id, made.outs);
  });

  test("after a run killed once its tag call was made: the re-run takes the tag as its own, with no tag call; it moves and removes it", async () => {
    const t = await twoBuilds("proj/dev/rerun-tag-app");
    const given = { template: t.alias, tag: "prod", target: "v1", __resource: "proj/dev/rerun-tag" };
    // What the killed run did: the whole create, whose answer never reached the state.
    await asKilledRun(async () => runtime.create("TemplateTag", await checked("TemplateTag", given)));
    expect((await tagsOf(t.id)).prod).toBe(t.v1);

    stderr.clear();
    const since = lastSeq(emu());
    const rerun = await runtime.create("TemplateTag", await checked("TemplateTag", given)); // checked anew: a new nonce
    // No tag call: its one write is its claim, the upload of a mark once the create finished.
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([expect.stringMatching(/^PUT \/_uploads\//)]);
    expect(rerun).toEqual({ id: `${t.alias}:prod`, outs: expect.objectContaining({ templateID: t.id, buildID: t.v1, target: "v1" }) });
    expect(stderr.text()).toContain(`tag "prod" of template ${t.alias} already points to build ${t.v1}, as an interrupted run of this resource set it: taking it as its own`);
    // Its own now: it moves the tag and deleting it removes the tag.
    const moved = await runtime.update("TemplateTag", rerun.id, rerun.outs, await checked("TemplateTag", { ...given, target: "v2" }, rerun.outs));
    expect(moved.outs.buildID).toBe(t.v2);
    expect((await tagsOf(t.id)).prod).toBe(t.v2);
    await runtime.remove("TemplateTag", rerun.id, moved.outs);
    expect((await tagsOf(t.id)).prod).toBeUndefined();
  });

  test("a tag a killed run set is refused to another resource, and to another generation of the same one", async () => {
    const t = await twoBuilds("proj/dev/killed-tag-app");
    const given = { template: t.alias, tag: "prod", target: "v2", __resource: "proj/dev/killed-tag" };
    // What the killed run did: the whole create, its answer never recorded.
    await asKilledRun(async () => runtime.create("TemplateTag", await checked("TemplateTag", given)));
    const refusal = `tag: "prod" of template ${t.alias} already exists, set by another stack or by hand`;
    // Another resource asking for the same tag on the same build.
    expect((await rejection(runtime.create("TemplateTag", await checked("TemplateTag", { ...given, __resource: "proj/dev/other-tag" })))).message).toContain(refusal);
    // The same resource's replacement (another generation) is a create of its own, not the killed one.
    const replacement = await checked("TemplateTag", given, await checked("TemplateTag", { ...given, tag: "canary" }));
    expect(replacement.__generation).toBe(1);
    expect((await rejection(runtime.create("TemplateTag", replacement))).message).toContain(refusal);
    // The re-run itself still takes it.
    const rerun = await runtime.create("TemplateTag", await checked("TemplateTag", given));
    expect(rerun.outs).toMatchObject({ templateID: t.id, buildID: t.v2 });
    await runtime.remove("TemplateTag", rerun.id, rerun.outs);
  });

  test("a new resource under a renamed one's first name: the tag the renamed one's finished create set is refused, not shared", async () => {
    const t = await twoBuilds("proj/dev/shared-tag-app");
    // One key, two resources: the renamed one (its create finished: claimed) and a new one under its first name.
    const given = { template: t.alias, tag: "prod", target: "v1", __resource: "proj/dev/shared-tag" };
    const renamed = await runtime.create("TemplateTag", await checked("TemplateTag", given));
    const since = lastSeq(emu());
    const err = await rejection(runtime.create("TemplateTag", await checked("TemplateTag", given)));
    expect(err.message).toBe(
      `tag: "prod" of template ${t.alias} (build ${t.v1}) was set by another resource made under this one's first name, whose create finished ` +
        "(one renamed away from it with `aliases`, one moved to another stack with `pulumi state move`, or the one this create replaces under " +
        "`pulumi up --replace` or `pulumi state taint`): it is that resource's, and deleting either resource would remove the other's tag. " +
        "Choose another tag, or set takeOver: true to take it over.",
    );
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([]);
    await runtime.remove("TemplateTag", renamed.id, renamed.outs);
  });

  test("a tag on another build than the target's, or one set by hand, is still refused; takeOver still takes it", async () => {
    const t = await twoBuilds("proj/dev/moved-tag-app");
    const given = { template: t.alias, tag: "prod", target: "v1", __resource: "proj/dev/moved-tag" };
    // The killed run set prod on v1; the program then asks for v2: the tag is not where this create would put it.
    await runtime.create("TemplateTag", await checked("TemplateTag", given));
    const refusal = `tag: "prod" of template ${t.alias} already exists, set by another stack or by hand`;
    expect((await rejection(runtime.create("TemplateTag", await checked("TemplateTag", { ...given, target: "v2" })))).message).toContain(refusal);
    // Set by hand on v2's build: no mark of this resource for it.
    expect((await rest(emu(), "POST", "/templates/tags", { target: `${t.alias}:v2`, tags: ["byhand"] })).status).toBe(201);
    const byHand = { ...given, tag: "byhand", target: "v2" };
    const since = lastSeq(emu());
    expect((await rejection(runtime.create("TemplateTag", await checked("TemplateTag", byHand)))).message).toContain(`tag: "byhand" of template ${t.alias} already exists`);
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([]);
    const taken = await runtime.create("TemplateTag", await checked("TemplateTag", { ...byHand, takeOver: true }));
    expect(taken.outs).toMatchObject({ buildID: t.v2, takeOver: true });
  });
});

describe("a Template create under a chosen alias run again", () => {
  const sdk = () => new PlatformClient({ apiKey: emu().apiKey, apiUrl: emu().apiUrl });

  /** What a run killed mid-build left: the template under `alias`, its first build requested and recorded for `inputs`. */
  async function killedBuild(alias: string, inputs: Obj): Promise<{ templateID: string; buildID: string }> {
    const requested = await sdk().builds.request({ name: alias });
    await recordBuild(requested, inputs, () => undefined);
    return requested;
  }

  test("the re-run adopts the template the killed run started: its build is started and waited for, none requested", async () => {
    const given = { dockerfile: "FROM a\nRUN echo chosen\n", alias: "chosen-rerun", __resource: "proj/dev/chosen" };
    const killed = await killedBuild("chosen-rerun", await checked("Template", given));
    stderr.clear();
    const since = lastSeq(emu());
    const { id, outs } = await runtime.create("Template", await checked("Template", given)); // checked anew: a new nonce
    expect(id).toBe(killed.templateID);
    expect(callsSince(emu(), since, { writesOnly: true }).filter((c) => !c.startsWith("PUT"))).toEqual([`POST /v2/templates/${id}/builds/${killed.buildID}`]);
    expect(outs).toMatchObject({ alias: "chosen-rerun", buildID: killed.buildID, buildCount: 1, buildStatus: "ready" });
    expect(stderr.text()).toContain(`adopting template ${id} (alias chosen-rerun): its build ${killed.buildID} was started by an interrupted run of this resource`);
    await runtime.remove("Template", id, outs);
  });

  test("still refused: the alias's template made for another resource, or from other inputs", async () => {
    const given = { dockerfile: "FROM a\nRUN echo held\n", alias: "chosen-held", __resource: "proj/dev/chosen-held" };
    const killed = await killedBuild("chosen-held", await checked("Template", { ...given, __resource: "proj/dev/someone-else" }));
    const refusal = `alias "chosen-held" is already the template ${killed.templateID} of your team, and a build under that name would replace its content.`;
    const since = lastSeq(emu());
    expect((await rejection(runtime.create("Template", await checked("Template", given)))).message).toContain(refusal);
    // This resource's record, but the Dockerfile edited since: not the build this create would make.
    await recordBuild(killed, await checked("Template", given), () => undefined);
    const edited = await checked("Template", { ...given, dockerfile: "FROM a\nRUN echo edited\n" });
    expect((await rejection(runtime.create("Template", edited))).message).toContain(refusal);
    expect(callsSince(emu(), since, { writesOnly: true }).filter((c) => !c.startsWith("PUT"))).toEqual([]);
    await rest(emu(), "DELETE", `/templates/${killed.templateID}`);
  });
});
