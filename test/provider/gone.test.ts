/**
 * An update of a resource the service no longer has says so (provider/runtime/gone.ts), for every kind
 * through the one runtime; and a 404 of something the update names, while the resource itself is
 * there, stays the service's own error. The engine's side (`pulumi refresh`, `up --refresh`) is e2e
 * (test/e2e/gone.test.ts).
 */
import { expect, test } from "vitest";
import { checked, emulatorForFile, rejection, rest, runtime } from "./harness";

const emu = emulatorForFile();
const WAY_OUT = "run `pulumi refresh` to drop it from the state, or `pulumi up --refresh` to make a new one.";

test("a killed sandbox: its update names it, why it may be gone, and the way out; the 404 is the cause", async () => {
  const inputs = await checked("Sandbox", { templateID: "base", timeoutSeconds: 600, __resource: "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/sandbox:Sandbox::box" });
  const { id, outs } = await runtime.create("Sandbox", inputs);
  expect((await rest(emu(), "DELETE", `/sandboxes/${id}`)).status).toBe(204);
  const err = await rejection(runtime.update("Sandbox", id, outs, { ...inputs, timeoutSeconds: 900 }));
  expect(err.message).toBe(`Sandbox "box" ${id} no longer exists in the service (it reached its timeout, or was killed outside Pulumi): ${WAY_OUT}`);
  expect((err.cause as { code?: string }).code).toBe("not_found");
});

test("a tag pointed at a target the template lacks: the service's 404 stands, since the TemplateTag itself is there", async () => {
  const template = await checked("Template", { dockerfile: "FROM python:3.12\nRUN echo gone\n", tags: ["v1"], __resource: "proj/dev/gone-tagged" });
  const t = await runtime.create("Template", template);
  const inputs = await checked("TemplateTag", { template: String(t.outs.alias), tag: "prod", target: "v1" });
  const made = await runtime.create("TemplateTag", inputs);
  const err = await rejection(runtime.update("TemplateTag", made.id, made.outs, { ...inputs, target: "v9" }));
  expect(err.message).not.toContain("no longer exists");
  expect((err as { code?: string }).code).toBe("not_found");
  expect((await runtime.read("TemplateTag", made.id, made.outs)).id).toBe(made.id);
});
