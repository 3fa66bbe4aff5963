/**
 * A Template create that fails after the service registered the template, through the real engine:
 * an upload refused, a start refused, the build's status polls running out of retries. Each time `up`
 * fails saying why, the state records the template (else its chosen alias would lock the next `up`
 * out), the next `up` finishes that same template with the same build, and destroy deletes it. A
 * context changed while `up` runs is refused before any call. Tests of a describe share one stack.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { inventoryOfStack, ROOT, startStack, type CliResult, type E2eStack } from "./harness";
import { parseState } from "./fixtures/fleet/state";
import { faultProxy, type FailRule, type FaultProxy } from "../fixtures/fault-proxy";

const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "template-build");
/** Its own context folder: template-build.test.ts writes and removes `ctx`. */
const CTX = join(FIXTURE, "ctx-failures");
const DOCKERFILE = ["FROM python:3.12", "COPY app /app", "RUN echo built", "CMD python /app/main.py"].join("\n");

function writeContext(): void {
  rmSync(CTX, { recursive: true, force: true });
  mkdirSync(join(CTX, "app"), { recursive: true });
  writeFileSync(join(CTX, "app", "main.py"), "print('one')\n");
}

afterAll(() => {
  rmSync(CTX, { recursive: true, force: true });
  rmSync(join(CTX, "..", "declare-app"), { force: true });
});

const templates = (s: E2eStack) => inventoryOfStack(s.emulator).templates;

describe("a create that fails once the template exists records it", () => {
  let s: E2eStack;
  let proxy: FaultProxy;

  beforeAll(async () => {
    writeContext();
    s = await startStack(FIXTURE, "e2e-template-create-failures");
    await s.ok("config", "rm", "sandbox:accessToken");
    proxy = await faultProxy(s.emulator.apiUrl);
    // Two retries, not nine: each case's refused call is still repeated, and the polls run out in a
    // second rather than after the backoff of nine (about 5 s of this file).
    await s.configure({ dockerfile: DOCKERFILE, context: "ctx-failures", "sandbox:apiUrl": proxy.url, "sandbox:maxRetries": "2" });
  }, 300_000);

  afterAll(async () => {
    await proxy?.close();
    await s?.close();
  });

  // Each under an alias of its own, chosen (so not adopted), so that each case stands alone.
  const KINDS: [string, string, FailRule][] = [
    // The object store refuses a link that expired.
    ["an upload refused", "upload-refused", { method: "PUT", path: /^\/_uploads\//, status: 403, message: "Request has expired" }],
    ["a start refused", "start-refused", { method: "POST", path: /^\/v2\/templates\/[^/]+\/builds\/[^/]+$/, status: 503, message: "no builder node available" }],
    ["status polls that run out of retries", "polls-ran-out", { method: "GET", path: /\/builds\/[^/]+\/status$/, status: 503, message: "service unavailable" }],
  ];

  test.each(KINDS)("%s: up fails and the state has the template; the next up finishes it (same ID, same build); destroy deletes it", async (_, alias, rule) => {
    await s.ok("config", "set", "alias", alias);
    proxy.failed.length = 0;
    proxy.fail(rule);
    const failed = await s.pulumi("up", "--yes", "--skip-preview");
    proxy.fail();
    expect(failed.code).not.toBe(0);
    expect(proxy.failed.filter((c) => c.startsWith(`${rule.method} `)).length).toBeGreaterThan(0);
    const [made, ...more] = templates(s).filter((t) => t.aliases.includes(alias));
    expect(more).toEqual([]);
    const templateID = made!.templateID;
    expect(failed.output).toContain(`Template ${templateID} is recorded: the next \`pulumi up\` goes on with its build`);
    expect(parseState(await s.exported()).templates).toEqual([templateID]);

    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/~ 1 updated/);
    expect(await s.outputs()).toMatchObject({ templateID, buildCount: 1 });
    // The build the failed run requested was finished, not requested again.
    expect(templates(s).map((t) => [t.templateID, t.builds.map((b) => b.status)])).toEqual([[templateID, ["ready"]]]);

    await s.ok("destroy", "--yes", "--skip-preview");
    expect(templates(s)).toEqual([]);
  });
});

describe("a context that changes while up runs", () => {
  const ALIAS = "changing-app";
  /** The file whose making declares `app` in the program (see the fixture). */
  const APP_WHEN = join(CTX, "..", "declare-app");
  let s: E2eStack;

  beforeAll(async () => {
    writeContext();
    rmSync(APP_WHEN, { force: true });
    // The `first` template's build is held (it ends once released) while `app` is declared and the context then changed, `app` waiting its turn.
    s = await startStack(FIXTURE, "e2e-template-context-changed", { holdBuilds: true });
    await s.ok("config", "rm", "sandbox:accessToken");
    await s.configure({ dockerfile: DOCKERFILE, context: "ctx-failures", alias: ALIAS, first: "FROM e2bdev/base:latest\nRUN echo first", appWhen: APP_WHEN });
  }, 300_000);

  afterAll(async () => {
    await s?.close();
  });

  test("is refused before any call for that template, naming the changed file and its step; the next up builds the files as they are", async () => {
    // One step at a time: `app`, declared while `first` builds, is checked at once and created after `first`.
    const running: Promise<CliResult> = s.pulumi("up", "--yes", "--skip-preview", "--parallel", "1");
    const building = () => templates(s).some((t) => t.builds.some((b) => b.status === "building"));
    for (const deadline = Date.now() + 120_000; !building(); await new Promise((r) => setTimeout(r, 50))) {
      if (Date.now() > deadline) throw new Error("the first template's build never started");
    }
    writeFileSync(APP_WHEN, "");
    await new Promise((r) => setTimeout(r, 10_000)); // `app` declared (within 0.1 s) and checked by now
    expect(templates(s).flatMap((t) => t.aliases)).not.toContain(ALIAS);
    writeFileSync(join(CTX, "app", "main.py"), "print('two')\n");
    s.emulator.releaseBuilds();
    const up = await running;
    expect(up.code).not.toBe(0);
    expect(up.output).toContain("context: its files changed after `pulumi up` checked them (app/main.py changed, read by step `COPY app /app (files");
    expect(up.output).toContain("No build was requested or started, and nothing was uploaded. Run `pulumi up` again");
    const builds = s.emulator.calls().filter((c) => c.method === "POST" && c.path === "/v3/templates");
    expect(builds).toHaveLength(1); // `first`'s
    expect(templates(s).flatMap((t) => t.aliases)).not.toContain(ALIAS);
    expect(parseState(await s.exported()).templates).toHaveLength(1);

    await s.ok("config", "rm", "appWhen");
    await s.ok("up", "--yes", "--skip-preview");
    expect(templates(s).flatMap((t) => t.aliases)).toContain(ALIAS);
  });
});
