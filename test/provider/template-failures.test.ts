/**
 * A Template create that fails for another reason than its build, through the provider's methods
 * against the emulator: a context changed after `check` is refused before any call, naming the file; an upload that
 * fails once the template exists (with the service unreachable even to describe it) is a partial
 * create carrying the template, which the update on those outputs finishes. The same through the real
 * engine, with a start refused and polls running out too, is e2e (template-create-failures).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { faultProxy } from "../fixtures/fault-proxy";
import { callsSince, checked, configureFor, emulatorForFile, expectPlainJSON, lastSeq, PROVIDER_TEXT, rejection, runtime } from "./harness";

const emu = emulatorForFile();
const ctx = mkdtempSync(join(tmpdir(), "template-failures-"));
mkdirSync(join(ctx, "app"));
writeFileSync(join(ctx, "app", "main.py"), "print('v1')\n");
afterAll(() => rmSync(ctx, { recursive: true, force: true }));

const DOCKERFILE = "FROM python:3.12\nCOPY app /app\nCMD python /app/main.py\n";
const check = (name: string) => checked("Template", { dockerfile: DOCKERFILE, context: ctx, alias: name, __resource: `proj/dev/${name}` });

test("a context changed after check is refused naming the file and its step, before any call", async () => {
  const inputs = await check("changed-context");
  writeFileSync(join(ctx, "app", "main.py"), "print('v2')\n");
  const since = lastSeq(emu());
  const err = await rejection(runtime.create("Template", inputs));
  expect(callsSince(emu(), since)).toEqual([]);
  expect(err.message).toMatch(/^context: its files changed after `pulumi up` checked them \(app\/main\.py changed, read by step `COPY app \/app \(files [0-9a-f]{64}\)`\)\. No build was requested or started, and nothing was uploaded\. /);
  expect(err.id).toBeUndefined();
});

test("an upload that fails once the template exists records it (what is known, when the service cannot describe it); the update finishes that build", async () => {
  const inputs = await check("failed-upload");
  const proxy = await faultProxy(emu().apiUrl);
  // The object store fails the upload, and the template cannot be read back after it.
  proxy.fail(
    { method: "PUT", path: /^\/_uploads\//, status: 500, message: "We encountered an internal error. Please try again." },
    { method: "GET", path: /^\/templates\/[^/]+$/, status: 500, message: "internal error" },
  );
  let partial: Awaited<ReturnType<typeof rejection>>;
  try {
    configureFor({ ...emu(), apiUrl: proxy.url });
    partial = await rejection(runtime.create("Template", inputs));
  } finally {
    configureFor(emu());
    await proxy.close();
  }
  // The first PUT is the build's record (../../provider/kinds/template/record.ts), whose failure is
  // only logged; the second is the COPY step's archive, the failure that stops the create; the last,
  // the claim of the template it records (../../provider/kinds/template/claim.ts), only logged too.
  expect(proxy.failed.map((c) => c.split(" ")[0])).toEqual(["PUT", "PUT", "GET", "PUT"]);
  const [template] = emu().state.templates().filter((t) => t.aliases.includes("failed-upload"));
  expect(partial.id).toBe(template!.templateID);
  expect(partial.message).toContain(`Template ${partial.id} is recorded: the next \`pulumi up\` goes on with its build, and \`pulumi destroy\` deletes it.`);
  expect(partial.properties).toMatchObject({ templateID: partial.id, alias: "failed-upload", latestBuildID: template!.builds[0]!.buildID, buildStatus: "waiting", __provider: PROVIDER_TEXT });
  expectPlainJSON(partial.properties, "properties");

  const since = lastSeq(emu());
  const { outs } = await runtime.update("Template", partial.id!, partial.properties!, inputs);
  expect(callsSince(emu(), since, { writesOnly: true }).filter((c) => !c.startsWith("PUT"))).toEqual([`POST /v2/templates/${partial.id}/builds/${template!.builds[0]!.buildID}`]);
  expect(outs).toMatchObject({ templateID: partial.id, buildID: template!.builds[0]!.buildID, buildCount: 1, buildStatus: "ready" });
  await runtime.remove("Template", partial.id!, outs);
});
