/**
 * Rolling a template forward and back through the real engine: a Template built into `v1`, rebuilt
 * into `v2` (v1 keeps naming its build), a TemplateTag `prod` moved v1 → v2 → v1 with one tag call
 * each and no build, a Sandbox from `alias:prod` seeing the file of the build `prod` names, a second
 * up with no changes, refresh reporting a move made elsewhere, bad tag names failing at preview, the
 * tag removed when the resource goes, an `up` killed as its tag call is answered (the next one takes the
 * tag as its own), and a tag someone else set refused unless taken over. The tests share one stack, in order.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { callsSince, lastSeq, ROOT, startStack, type E2eStack } from "./harness";
import { backendDir, endPluginsOf, killableUp, until } from "./kill";

const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "template-tag");
const CTX = join(FIXTURE, "ctx");

afterAll(() => rmSync(CTX, { recursive: true, force: true }));

function writeVersion(text: string): void {
  mkdirSync(CTX, { recursive: true });
  writeFileSync(join(CTX, "version.txt"), `${text}\n`);
}

/** The stack's template's tags as the service lists them: tag → build. */
async function tagsOf(s: E2eStack): Promise<Record<string, string>> {
  const { templateID } = await s.outputs();
  const res = await fetch(`${s.emulator.apiUrl}/templates/${String(templateID)}/tags`, { headers: { "X-API-Key": s.emulator.apiKey } });
  expect(res.status).toBe(200);
  const list = (await res.json()) as { tag: string; buildID: string }[];
  return Object.fromEntries(list.map((t) => [t.tag, t.buildID]));
}

/** `prod` pointed at v2's build through the API, as another stack or a person would; returns the alias. */
async function prodToV2ByHand(s: E2eStack): Promise<string> {
  const alias = String((await s.outputs()).alias);
  const res = await fetch(`${s.emulator.apiUrl}/templates/tags`, {
    method: "POST",
    headers: { "X-API-Key": s.emulator.apiKey, "Content-Type": "application/json" },
    body: JSON.stringify({ target: `${alias}:v2`, tags: ["prod"] }),
  });
  expect(res.status).toBe(201);
  return alias;
}

/** The calls an up made that change something (reads left out). */
async function upWritesOf(s: E2eStack): Promise<string[]> {
  const since = lastSeq(s.emulator);
  await s.ok("up", "--yes", "--skip-preview");
  return callsSince(s.emulator, since).filter((c) => !c.startsWith("GET"));
}

const builds = (calls: string[]) => calls.filter((c) => c === "POST /v3/templates" || /\/builds\//.test(c));
const tagCalls = (calls: string[]) => calls.filter((c) => c.endsWith(" /templates/tags"));

describe("a TemplateTag rolls a template's builds forward and back", () => {
  let s: E2eStack;
  const buildOf: Record<string, string> = {};
  /** Sees each request line as the emulator logs it: after the request is handled, before its answer is sent. */
  let onRequest: ((line: string) => void) | undefined;

  /** app/version.txt in the stack's sandbox, as the build it started from placed it. */
  async function sandboxVersion(): Promise<string> {
    const { sandboxID } = await s.outputs();
    const box = s.emulator.state.sandboxes().find((x) => x.sandboxID === sandboxID);
    if (!box) throw new Error(`sandbox ${String(sandboxID)} is not in the emulator`);
    return readFileSync(join(box.rootDir, "app", "version.txt"), "utf8").trim();
  }

  const tags = () => tagsOf(s);
  const upWrites = () => upWritesOf(s);

  /** An up after `target` changed: one tag call and no build; prod and the new sandbox on `target`'s build. */
  async function rolledTo(target: string, content: string): Promise<void> {
    const calls = await upWrites();
    expect(tagCalls(calls)).toEqual(["POST /templates/tags"]);
    expect(builds(calls)).toEqual([]);
    expect((await tags()).prod).toBe(buildOf[target]);
    expect(await sandboxVersion()).toBe(content);
  }

  beforeAll(async () => {
    writeVersion("one");
    s = await startStack(FIXTURE, "e2e-template-tag", { log: (line) => onRequest?.(line) });
    await s.ok("config", "rm", "sandbox:accessToken");
    await s.ok("config", "set", "version", "v1");
  }, 300_000);

  afterAll(async () => {
    await s?.close();
  });

  test("v1 is built, then v2 is built and v1 keeps naming its build", async () => {
    await s.ok("up", "--yes", "--skip-preview");
    buildOf.v1 = (await tags()).v1!;
    expect(buildOf.v1).toBeTruthy();
    writeVersion("two");
    await s.ok("config", "set", "version", "v2");
    expect(builds(await upWrites())).toHaveLength(2);
    const now = await tags();
    buildOf.v2 = now.v2!;
    expect(now).toMatchObject({ v1: buildOf.v1, v2: buildOf.v2, default: buildOf.v2 });
    expect(buildOf.v2).not.toBe(buildOf.v1);
  });

  test("bad tag names fail at preview naming the field, before any call", async () => {
    for (const [key, value, message] of [
      ["target", "V1", "target: may contain only lowercase letters"],
      ["tag", "default", "tag: cannot be `default`"],
      ["target", "prod", "target: names the tag itself"],
    ] as const) {
      const since = lastSeq(s.emulator);
      // `--config` sets the values in the stack's config, as `config set` does, without a CLI start of its own.
      const preview = await s.pulumi("preview", ...Object.entries({ target: "v1", [key]: value }).flatMap(([k, v]) => ["--config", `${k}=${v}`]));
      expect(preview.code).not.toBe(0);
      expect(preview.output).toContain(message);
      expect(callsSince(s.emulator, since).filter((c) => !c.startsWith("GET"))).toEqual([]);
      await s.ok("config", "rm", "tag");
    }
  });

  test("prod → v1: one tag call, and a sandbox from alias:prod starts from v1's build", async () => {
    await s.ok("config", "set", "target", "v1");
    await rolledTo("v1", "one");
    expect((await s.outputs()).prodBuildID).toBe(buildOf.v1);
  });

  test("prod → v2 rolls forward in place: the preview shows an update, the up one tag call and no build", async () => {
    await s.ok("config", "set", "target", "v2");
    const preview = await s.ok("preview", "--diff");
    expect(preview.output).toContain("~ pulumi-nodejs:dynamic/sandbox:TemplateTag: (update)");
    expect(preview.output).toMatch(/~ target\s*: "v1" => "v2"/);
    expect(preview.output).not.toMatch(/TemplateTag: \(replace|\+-.*TemplateTag/);
    await rolledTo("v2", "two");
  });

  test("a second up changes nothing", async () => {
    await s.ok("preview", "--expect-no-changes");
    expect(await upWrites()).toEqual([]);
  });

  test("prod → v1 rolls back without a rebuild", async () => {
    await s.ok("config", "set", "target", "v1");
    await rolledTo("v1", "one");
  });

  test("refresh reports prod moved elsewhere as drift of target; up moves it back", async () => {
    await prodToV2ByHand(s);
    await s.ok("refresh", "--yes", "--skip-preview");
    const state = JSON.parse(await s.exported()) as { deployment: { resources: { urn: string; outputs?: Record<string, unknown> }[] } };
    const tagState = state.deployment.resources.find((r) => r.urn.endsWith("::prod"));
    expect(tagState?.outputs).toMatchObject({ target: "v2", buildID: buildOf.v2 });
    const calls = await upWrites();
    expect(tagCalls(calls)).toEqual(["POST /templates/tags"]);
    expect((await tags()).prod).toBe(buildOf.v1);
    // The refresh left the sandbox on `alias:prod`, as the program names it.
    await s.ok("preview", "--expect-no-changes");
  });

  test("dropping the TemplateTag removes the tag, and only it", async () => {
    await s.ok("config", "rm", "target");
    const calls = await upWrites();
    expect(tagCalls(calls)).toEqual(["DELETE /templates/tags"]);
    const now = await tags();
    expect(now.prod).toBeUndefined();
    expect(now).toMatchObject({ v1: buildOf.v1, v2: buildOf.v2 });
  });

  test("an up killed as its tag call is answered: the next up takes the tag it set as its own, with no tag call", async () => {
    const stateDir = await backendDir(s);
    await s.ok("config", "set", "target", "v1");
    const run = await killableUp(s, FIXTURE, stateDir);
    let killed: Promise<void> | undefined;
    onRequest = (line) => {
      if (killed === undefined && line.startsWith("POST /templates/tags ")) killed = run.kill();
    };
    try {
      await until("the tag call", () => killed !== undefined);
      await killed;
    } finally {
      onRequest = undefined;
    }
    expect((await tags()).prod).toBe(buildOf.v1); // the service set it; the engine never heard

    await s.ok("cancel", "--yes"); // the killed run left the stack locked
    const since = lastSeq(s.emulator);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toContain(`tag "prod" of template ${String((await s.outputs()).alias)} already points to build ${buildOf.v1}, as an interrupted run of this resource set it: taking it as its own`);
    expect(tagCalls(callsSince(s.emulator, since))).toEqual([]);
    expect((await s.outputs()).prodBuildID).toBe(buildOf.v1);
    expect(await sandboxVersion()).toBe("one");
    endPluginsOf(stateDir);

    // Pulumi 3.259 keeps the killed run's pending create until a refresh clears it; then the tag goes with the resource.
    await s.ok("refresh", "--clear-pending-creates", "--yes", "--skip-preview");
    await s.ok("config", "rm", "target");
    expect(tagCalls(await upWrites())).toEqual(["DELETE /templates/tags"]);
    expect((await tags()).prod).toBeUndefined();
  }, 120_000);

  test("a tag set by someone else is refused naming the tag, its build and takeOver; with takeOver: true it is taken over", async () => {
    const alias = await prodToV2ByHand(s);
    await s.ok("config", "set", "target", "v1");
    const since = lastSeq(s.emulator);
    const up = await s.pulumi("up", "--yes", "--skip-preview");
    expect(up.code).not.toBe(0);
    expect(up.output).toContain(`tag: "prod" of template ${alias} already exists, set by another stack or by hand`);
    expect(up.output).toContain(`it points to build ${buildOf.v2} (tagged default, v2). This TemplateTag would move it to "v1". Set takeOver: true`);
    expect(tagCalls(callsSince(s.emulator, since))).toEqual([]);
    expect((await tags()).prod).toBe(buildOf.v2);

    await s.ok("config", "set", "takeOver", "true");
    await rolledTo("v1", "one");
    await s.ok("config", "rm-all", "target", "takeOver");
    expect(tagCalls(await upWrites())).toEqual(["DELETE /templates/tags"]);
    expect((await tags()).prod).toBeUndefined();
  });
});

describe("the native plugin serves TemplateTag (by type token)", () => {
  let s: E2eStack;

  beforeAll(async () => {
    s = await startStack(FIXTURE, "e2e-template-tag-plugin");
    await s.ok("config", "rm", "sandbox:accessToken");
    await s.configure({ plugin: "true", version: "v1" });
    await s.ok("up", "--yes", "--skip-preview");
    await s.ok("config", "set", "version", "v2");
    await s.ok("up", "--yes", "--skip-preview");
  }, 300_000);

  afterAll(async () => {
    await s?.close();
  });

  test("create, a sandbox from alias:prod, an in-place move, no changes after, and the tag removed", async () => {
    const built = await tagsOf(s);
    await s.ok("config", "set", "target", "v1");
    expect(tagCalls(await upWritesOf(s))).toEqual(["POST /templates/tags"]);
    expect((await tagsOf(s)).prod).toBe(built.v1);
    expect(s.emulator.state.sandboxes().map((x) => x.sandboxID)).toContain((await s.outputs()).sandboxID);

    await s.ok("config", "set", "target", "v2");
    const calls = await upWritesOf(s);
    expect(tagCalls(calls)).toEqual(["POST /templates/tags"]);
    expect(builds(calls)).toEqual([]);
    expect((await tagsOf(s)).prod).toBe(built.v2);
    await s.ok("preview", "--expect-no-changes");

    await s.ok("config", "rm", "target");
    expect(tagCalls(await upWritesOf(s))).toEqual(["DELETE /templates/tags"]);
    expect((await tagsOf(s)).prod).toBeUndefined();
  });
});
