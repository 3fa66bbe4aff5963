import { describe, expect, test } from "vitest";
import { checkInputs } from "../../provider/check";
import { UNKNOWN } from "../../provider/spec";
import { sandboxSpec } from "../../provider/kinds/sandbox/spec";
import { templateSpec } from "../../provider/kinds/template/spec";
import { volumeSpec } from "../../provider/kinds/volume/spec";

const key = "proj/dev/my-box";
const reasons = (o: ReturnType<typeof checkInputs>) => (o.failures ?? []).map((f) => f.reason);

describe("check", () => {
  test("applies defaults and the provider's own inputs", () => {
    const out = checkInputs(templateSpec, {}, { dockerfile: "FROM ubuntu:22.04\n", __resource: key });
    expect(out.failures).toBeUndefined();
    expect(out.inputs).toMatchObject({ public: false, buildTimeoutSeconds: 1200, __resource: key, __generation: 0, __auto: ["alias"] });
    expect(out.inputs?.alias).toMatch(/^my-box-[0-9a-f]{8}$/);
  });

  test("an auto-name is stable across runs and changes with a replacement", () => {
    const first = checkInputs(volumeSpec, {}, { __resource: key }).inputs!;
    const again = checkInputs(volumeSpec, {}, { __resource: key }).inputs!;
    expect(again.name).toBe(first.name);
    const kept = checkInputs(volumeSpec, first, { __resource: key }).inputs!;
    expect(kept).toMatchObject({ name: first.name, __generation: 0 });
    const renamed = checkInputs(volumeSpec, first, { name: "data", __resource: key }).inputs!;
    expect(renamed).toMatchObject({ name: "data", __generation: 1 });
  });

  test("a rename (stack, project, aliases) keeps the key, the auto-name and the generation", () => {
    const urn = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/sandbox:Volume::data";
    const first = checkInputs(volumeSpec, {}, { __resource: urn }).inputs!;
    expect(first.name).toMatch(/^data-[0-9a-f]{8}$/);
    const renamed = "urn:pulumi:prod::proj2::my:Comp$pulumi-nodejs:dynamic/sandbox:Volume::data2";
    const after = checkInputs(volumeSpec, first, { __resource: renamed }).inputs!;
    expect(after).toMatchObject({ name: first.name, __resource: urn, __generation: 0, __auto: ["name"] });
    // A real replacement still mints the next name, from the kept key.
    const tpl = checkInputs(templateSpec, {}, { dockerfile: "FROM a", __resource: urn }).inputs!;
    const moved = checkInputs(templateSpec, tpl, { dockerfile: "FROM a", teamID: "t2", __resource: renamed }).inputs!;
    expect(moved).toMatchObject({ __resource: urn, __generation: 1 });
    expect(moved.alias).not.toBe(tpl.alias);
  });

  test("same-named children of two components get different auto-names", () => {
    const a = checkInputs(volumeSpec, {}, { __resource: "urn:pulumi:dev::proj::x:A$pulumi-nodejs:dynamic/sandbox:Volume::data" }).inputs!;
    const b = checkInputs(volumeSpec, {}, { __resource: "urn:pulumi:dev::proj::x:B$pulumi-nodejs:dynamic/sandbox:Volume::data" }).inputs!;
    expect(a.name).toMatch(/^data-/);
    expect(b.name).toMatch(/^data-/);
    expect(a.name).not.toBe(b.name);
  });

  test("the plaintext of the program's secret values passes through to the handlers", () => {
    const out = checkInputs(sandboxSpec, {}, { templateID: "base", __resource: key, __secrets: ["s3cr3t"] }).inputs!;
    expect(out.__secrets).toEqual(["s3cr3t"]);
  });

  test("a deprecated name (timeout) is taken as its current one (timeoutSeconds), and a failure names it as written", () => {
    expect(checkInputs(sandboxSpec, {}, { templateID: "base", timeout: 60, __resource: key }).inputs).toMatchObject({ timeoutSeconds: 60 });
    expect(checkInputs(sandboxSpec, {}, { templateID: "base", timeout: 60, __resource: key }).inputs).not.toHaveProperty("timeout");
    expect(reasons(checkInputs(sandboxSpec, {}, { templateID: "base", timeout: 0 }))).toEqual(["timeout: must be greater than 0 (the service refuses 0)"]);
    expect(reasons(checkInputs(sandboxSpec, {}, { templateID: "base", timeoutSeconds: 0 }))).toEqual(["timeoutSeconds: must be greater than 0 (the service refuses 0)"]);
    expect(reasons(checkInputs(sandboxSpec, {}, { templateID: "base", timeout: 60, timeoutSeconds: 60 }))).toEqual([
      "timeout: is the deprecated name of timeoutSeconds; give only timeoutSeconds",
    ]);
  });

  test("each failure names the field path and the rule", () => {
    const out = checkInputs(sandboxSpec, {}, {
      templateID: "base",
      timeout: 0,
      volumeMounts: [{ name: "v", path: "/data" }, { name: "bad name", path: "data" }],
    });
    expect(reasons(out)).toEqual([
      "timeout: must be greater than 0 (the service refuses 0)",
      "volumeMounts[1].name: must be a volume name (pattern ^[a-zA-Z0-9_-]+$)",
      "volumeMounts[1].path: must be an absolute path (start with /)",
    ]);
    // No property is named to the engine: it would print the input's value, which may be a secret.
    expect(out.failures?.map((f) => f.property)).toEqual(["", "", ""]);
  });

  test("a missing required field and an unknown field", () => {
    expect(reasons(checkInputs(templateSpec, {}, {}))).toContain("dockerfile: is required");
    const out = checkInputs(sandboxSpec, {}, { templateId: "base" });
    expect(reasons(out).find((r) => r.startsWith("templateId"))).toMatch(/^templateId: unknown property of Sandbox; valid properties are: templateID, forkFrom, timeoutSeconds/);
  });

  test("a cross-field rule runs on known values", () => {
    const out = checkInputs(sandboxSpec, {}, { templateID: "base", network: { allowPublicTraffic: false } });
    expect(reasons(out)).toEqual(["network.allowPublicTraffic: false requires secure: true (the service refuses it otherwise)"]);
  });

  test("unknown values at preview skip only their own field", () => {
    const out = checkInputs(sandboxSpec, {}, { templateID: UNKNOWN, timeout: 30, metadata: { team: UNKNOWN } });
    expect(out.failures).toBeUndefined();
    expect(out.inputs).toMatchObject({ templateID: UNKNOWN, timeoutSeconds: 30, metadata: { team: UNKNOWN } });
    const bad = checkInputs(sandboxSpec, {}, { templateID: UNKNOWN, timeout: -5 });
    expect(reasons(bad)).toEqual(["timeout: must be greater than 0 (the service refuses 0)"]);
  });

  test("a map key that breaks its rule gets that rule's message", () => {
    expect(reasons(checkInputs(sandboxSpec, {}, { templateID: "base", envVars: { "1BAD": "x" } }))).toEqual([
      "envVars.1BAD: environment variable names must match ^[A-Za-z_][A-Za-z0-9_]*$",
    ]);
  });

  test("a Dockerfile without FROM is refused before any build", () => {
    expect(reasons(checkInputs(templateSpec, {}, { dockerfile: "RUN echo hi" }))).toEqual([
      "dockerfile: must contain a FROM instruction (the base image)",
    ]);
  });
});
