/**
 * A Template's build is planned once, at `check` (provider/kinds/template/plans.ts), through the
 * provider's methods against the emulator. What the files were when check hashed them is what is
 * built: create and update read the context's listing, not its files, and read a file again only to
 * upload what the service lacks. A file swapped after check for one of the same size and time (which
 * no listing can tell) therefore shows whether the context is read and hashed again: a build that
 * re-hashed it would see the new content.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { filesHash } from "../../sdk/template-build";
import { callsSince, checked, emulatorForFile, lastSeq, rejection, runtime } from "./harness";

const emu = emulatorForFile();
const ctx = mkdtempSync(join(tmpdir(), "template-plan-"));
mkdirSync(join(ctx, "app"));
afterAll(() => rmSync(ctx, { recursive: true, force: true }));

const DOCKERFILE = "FROM python:3.12\nCOPY app /app\nCMD python /app/main.py\n";
const MAIN = join(ctx, "app", "main.py");
/** A whole second, so that setting it again gives the very same modification time. */
const WHEN = new Date("2026-01-02T03:04:05Z");

/** Writes main.py with the one modification time, as an edit that keeps size and time would leave it. */
function writeMain(text: string): void {
  writeFileSync(MAIN, text);
  utimesSync(MAIN, WHEN, WHEN);
}

const copyStep = (inputs: Record<string, unknown>) => (inputs.buildSteps as string[]).find((line) => line.startsWith("COPY "));
const inputsFor = (alias: string, extra: Record<string, unknown> = {}) =>
  ({ dockerfile: DOCKERFILE, context: ctx, alias, __resource: `proj/dev/${alias}`, ...extra });

test("a rebuild builds what check hashed: the service has those files, and the context is neither read nor hashed again", async () => {
  writeMain("print('A')\n");
  const planned = filesHash("app", "/app", ctx);
  const { id, outs } = await runtime.create("Template", await checked("Template", inputsFor("planned-once")));
  const news = await checked("Template", inputsFor("planned-once", { force: true }), outs);
  expect(news.buildSteps).toContain(`COPY app /app (files ${planned})`);
  writeMain("print('B')\n");
  expect(filesHash("app", "/app", ctx)).not.toBe(planned);

  const since = lastSeq(emu());
  const { outs: rebuilt } = await runtime.update("Template", id, outs, news);
  const calls = callsSince(emu(), since);
  expect(calls).toContain(`GET /templates/${id}/files/${planned}`);
  // One PUT: the build's record (provider/kinds/template/record.ts); the service had the COPY step's files.
  expect(calls.filter((c) => c.startsWith("PUT "))).toHaveLength(1);
  expect(rebuilt).toMatchObject({ templateID: id, buildStatus: "ready", buildCount: 2, buildSteps: news.buildSteps });
  await runtime.remove("Template", id, rebuilt);
});

test("files the service lacks are read once more to upload them, and refused when they are not what check hashed", async () => {
  writeMain("print('A')\n");
  const inputs = await checked("Template", inputsFor("planned-upload"));
  const planned = filesHash("app", "/app", ctx);
  writeMain("print('B')\n");

  const err = await rejection(runtime.create("Template", inputs));
  expect(err.message).toContain(
    `COPY app: a file's content changed (not its size or modification time) since its files were hashed (files ${planned}); ` +
      "nothing of it was uploaded.",
  );
  expect(err.message).toContain(`Template ${err.id} is recorded: the next \`pulumi up\` goes on with its build`);
  expect(callsSince(emu(), 0)).not.toContain(`POST /v2/templates/${err.id}/builds/${(err.properties as { latestBuildID: string }).latestBuildID}`);
  await runtime.remove("Template", err.id!, err.properties!);
});

test("an edit after check is refused before any call, naming the file; so is a file added to a copied directory", async () => {
  writeMain("print('A')\n");
  const inputs = await checked("Template", inputsFor("planned-edit"));
  writeFileSync(MAIN, "print('edited')\n");
  let since = lastSeq(emu());
  let err = await rejection(runtime.create("Template", inputs));
  expect(callsSince(emu(), since)).toEqual([]);
  expect(err.message).toBe(
    `context: its files changed after \`pulumi up\` checked them (app/main.py changed, read by step \`${copyStep(inputs)}\`). ` +
      "No build was requested or started, and nothing was uploaded. Run `pulumi up` again to build the files as they are now.",
  );

  writeMain("print('A')\n");
  const again = await checked("Template", inputsFor("planned-edit"));
  writeFileSync(join(ctx, "app", "extra.py"), "x = 1\n");
  since = lastSeq(emu());
  err = await rejection(runtime.create("Template", again));
  expect(callsSince(emu(), since)).toEqual([]);
  expect(err.message).toContain("(app/extra.py added, read by step `COPY app /app (files ");
  rmSync(join(ctx, "app", "extra.py"));
});
