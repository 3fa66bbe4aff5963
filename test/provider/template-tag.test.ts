/**
 * TemplateTag through the provider's methods against the emulator: what `check` refuses (naming the
 * field), a Sandbox naming `alias:tag` passing check, read after the service's own changes (the
 * tag moved: drift of `target`; removed: gone), and a tag someone else set refused unless taken
 * over. The full roll forward and back is e2e (template-tag).
 */
import { describe, expect, test } from "vitest";
import { callsSince, checked, checkReasons, emulatorForFile, lastSeq, rejection, rest, runtime } from "./harness";

const emu = emulatorForFile();

describe("check", () => {
  test("bad names fail naming the field, before any call", async () => {
    const since = lastSeq(emu());
    expect(await checkReasons("TemplateTag", { template: "app:v1", tag: "prod", target: "v1" })).toEqual([
      "template: must be a template alias, optionally `namespace/alias`: lowercase letters, digits, '_' and '-', without a `:tag`",
    ]);
    expect(await checkReasons("TemplateTag", { template: "app", tag: "default", target: "v1" })).toEqual([
      "tag: cannot be `default`: the service moves it to each new build and refuses to delete it; name another tag (e.g. \"prod\")",
    ]);
    expect(await checkReasons("TemplateTag", { template: "app", tag: "prod", target: "0b6f3c1e-8d2a-4f5b-9c7e-1a2b3c4d5e6f" })).toEqual([
      "target: must not be a UUID (the service refuses UUID tags)",
    ]);
    expect(await checkReasons("TemplateTag", { template: "app", tag: "prod", target: "prod" })).toEqual([
      'target: names the tag itself; name the tag whose build it should point to (e.g. "v5")',
    ]);
    expect(callsSince(emu(), since)).toEqual([]);
  });

  test("`target: default` and a Sandbox from `alias:tag` pass", async () => {
    expect(await checked("TemplateTag", { template: "team/app", tag: "prod", target: "default" })).toMatchObject({ target: "default" });
    expect(await checked("Sandbox", { templateID: "app:prod" })).toMatchObject({ templateID: "app:prod" });
  });
});

describe("read after the service's own changes", () => {
  test("a tag moved elsewhere is drift of target; a removed tag is gone", async () => {
    const given = { dockerfile: "FROM python:3.12\nRUN echo one\n", tags: ["v1"], __resource: "proj/dev/tagged" };
    const template = await checked("Template", given);
    const t = await runtime.create("Template", template);
    const rebuilt = await runtime.update("Template", t.id, t.outs, await checked("Template", { ...given, dockerfile: "FROM python:3.12\nRUN echo two\n", tags: ["v2"] }, template));
    const alias = String(rebuilt.outs.alias);
    const inputs = await checked("TemplateTag", { template: alias, tag: "prod", target: "v1" });
    const made = await runtime.create("TemplateTag", inputs);
    expect(made.id).toBe(`${alias}:prod`);
    expect(made.outs).toMatchObject({ templateID: t.id, buildID: t.outs.buildID });
    expect((await runtime.read("TemplateTag", made.id, made.outs)).props).toMatchObject({ target: "v1", buildID: t.outs.buildID });

    expect((await rest(emu(), "POST", "/templates/tags", { target: `${alias}:v2`, tags: ["prod"] })).status).toBe(201);
    expect((await runtime.read("TemplateTag", made.id, made.outs)).props).toMatchObject({ target: "v2", buildID: rebuilt.outs.buildID });

    expect((await rest(emu(), "DELETE", "/templates/tags", { name: alias, tags: ["prod"] })).status).toBe(204);
    expect(await runtime.read("TemplateTag", made.id, made.outs)).toEqual({});
    // Deleting what is already gone is done.
    await runtime.remove("TemplateTag", made.id, made.outs);
  });

  test("a tag of a template that does not exist (TemplateTag.get, the ID alone) reads as gone", async () => {
    expect(await runtime.read("TemplateTag", "no-such-template:prod", {})).toEqual({});
  });
});

describe("a tag someone else set", () => {
  test("create refuses it, naming the tag, its build and takeOver, with no tag call; takeOver: true moves it", async () => {
    const t = await runtime.create("Template", await checked("Template", { dockerfile: "FROM python:3.12\nRUN echo held\n", tags: ["v1"], __resource: "proj/dev/held" }));
    const alias = String(t.outs.alias);
    expect((await rest(emu(), "POST", "/templates/tags", { target: alias, tags: ["prod"] })).status).toBe(201);
    const since = lastSeq(emu());
    const inputs = await checked("TemplateTag", { template: alias, tag: "prod", target: "v1" });
    const refused = await rejection(runtime.create("TemplateTag", inputs));
    expect(refused.message).toContain(`tag: "prod" of template ${alias} already exists, set by another stack or by hand`);
    expect(refused.message).toContain(`it points to build ${String(t.outs.buildID)} (tagged `);
    expect(refused.message).toContain("Set takeOver: true to take the tag over");
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([]);
    const taken = await runtime.create("TemplateTag", await checked("TemplateTag", { template: alias, tag: "prod", target: "v1", takeOver: true }));
    expect(taken.outs).toMatchObject({ templateID: t.id, buildID: t.outs.buildID, takeOver: true });
  });
});
