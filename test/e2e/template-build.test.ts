/**
 * A Template built from a Dockerfile and a build context through the real engine, on the service's
 * current build system (API key only): up, up again, one context file edited (preview names that
 * step; up rebuilds the same template and uploads that file alone), a Dockerfile line the service
 * cannot build (preview fails naming it, no call), an `up` killed during the build (the next one
 * waits for that build), and the legacy v1 path when asked for. Tests of a describe share one stack.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { filesHash } from "../../sdk/template-build";
import { callsSince, inventoryOfStack, lastSeq, ROOT, startStack, type E2eStack } from "./harness";
import { backendDir, endPluginsOf, killableUp, printed, until } from "./kill";

const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "template-build");
/** The context, made here: the program names it relative to its project directory. */
const CTX = join(FIXTURE, "ctx");
// No CMD: a start command runs at finalize after a 20 s wait, over the host's programs (no `python`).
const DOCKERFILE = ["FROM python:3.12", "COPY app /app", "COPY data /data", "RUN echo built"].join("\n");

function writeContext(): void {
  rmSync(CTX, { recursive: true, force: true });
  mkdirSync(join(CTX, "app"), { recursive: true });
  mkdirSync(join(CTX, "data"));
  writeFileSync(join(CTX, "app", "main.py"), "print('one')\n");
  writeFileSync(join(CTX, "data", "words.txt"), "alpha\nbeta\n");
}

afterAll(() => rmSync(CTX, { recursive: true, force: true }));

const uploads = (calls: string[]) => calls.filter((c) => c.startsWith("PUT /_uploads/"));

describe("a template from a context, on the current build system", () => {
  let s: E2eStack;

  beforeAll(async () => {
    writeContext();
    s = await startStack(FIXTURE, "e2e-template-build");
    await s.configure({ dockerfile: DOCKERFILE, context: "ctx" });
    // The API key alone: the current build system needs no access token.
    await s.ok("config", "rm", "sandbox:accessToken");
  }, 300_000);

  afterAll(async () => {
    await s?.close();
  });

  test("up builds it: one build request, each COPY step's files uploaded once, the steps started", async () => {
    const since = lastSeq(s.emulator);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/\+ 2 created/);
    expect(up.output).toContain("[Template app] uploaded the files of 2 of 2 COPY step(s)");
    const out = await s.outputs();
    const calls = callsSince(s.emulator, since).filter((c) => !c.startsWith("GET"));
    expect(calls.filter((c) => !c.startsWith("PUT"))).toEqual(["POST /v3/templates", `POST /v2/templates/${out.templateID}/builds/${out.buildID}`]);
    expect(uploads(calls)).toHaveLength(4); // the build's record (provider/kinds/template/record.ts), each COPY step's archive, then the template's claim (claim.ts)
    expect(out.buildSteps).toContain(`COPY app /app (files ${filesHash("app", "/app", CTX)})`);
    expect(inventoryOfStack(s.emulator).templates.map((t) => t.templateID)).toEqual([out.templateID]);
  });

  test("a second up changes nothing and sends the service nothing", async () => {
    const since = lastSeq(s.emulator);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/2 unchanged/);
    expect(callsSince(s.emulator, since)).toEqual([]);
  });

  test("one context file edited: preview --diff shows that COPY step changed and nothing else", async () => {
    const before = filesHash("app", "/app", CTX);
    writeFileSync(join(CTX, "app", "main.py"), "print('two')\n");
    const after = filesHash("app", "/app", CTX);
    const since = lastSeq(s.emulator);
    const preview = await s.ok("preview", "--diff");
    expect(preview.output).toContain(`"COPY app /app (files ${before})" => "COPY app /app (files ${after})"`);
    // Every change marked (in the inputs, then the outputs) is buildSteps, and within it that step, [3].
    const marked = [...preview.output.matchAll(/^\s+~ (\S+?)\s*:/gm)].map((m) => m[1]);
    expect(new Set(marked)).toEqual(new Set(["pulumi-nodejs", "buildSteps", "[3]"]));
    expect(preview.output).toMatch(/~ 1 to update/);
    expect(callsSince(s.emulator, since)).toEqual([]);
  });

  test("up rebuilds the same template with a new build, uploading the changed file's step alone", async () => {
    const before = await s.outputs();
    const since = lastSeq(s.emulator);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/~ 1 updated/);
    expect(up.output).toContain(`rebuilding template ${before.templateID} (buildSteps)`);
    expect(up.output).toContain("changed step: COPY app /app (files");
    const after = await s.outputs();
    expect(after.templateID).toBe(before.templateID);
    expect(after.buildID).not.toBe(before.buildID);
    expect(after.buildCount).toBe(2);
    const calls = callsSince(s.emulator, since);
    expect(calls.filter((c) => c.includes("/files/"))).toHaveLength(3); // asked about the build's record and both steps' files
    expect(uploads(calls)).toHaveLength(2); // and sent the record and the changed one
    expect(calls.filter((c) => c.startsWith("POST"))).toEqual(["POST /v3/templates", `POST /v2/templates/${after.templateID}/builds/${after.buildID}`]);
  });

  test("a Dockerfile line the service cannot build fails preview naming the line, with no call", async () => {
    await s.ok("config", "set", "dockerfile", `${DOCKERFILE}\nCOPY --from=builder /out /out`);
    const since = lastSeq(s.emulator);
    const preview = await s.pulumi("preview");
    expect(preview.code).not.toBe(0);
    expect(preview.output).toContain("dockerfile: line 5: COPY: --from copies from another stage; multi-stage Dockerfiles are not supported");
    expect(callsSince(s.emulator, since)).toEqual([]);
    await s.ok("config", "set", "dockerfile", DOCKERFILE);
  });

  test("buildSystem v1: the access token is needed (preview says so); with it, the Dockerfile's text is sent, and destroy", async () => {
    await s.ok("config", "set", "buildSystem", "v1");
    await s.ok("config", "rm", "context");
    await s.ok("config", "set", "dockerfile", "FROM e2bdev/base:latest\nRUN echo legacy");
    const refused = await s.pulumi("preview");
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain('Template needs an access token (buildSystem "v1": its build endpoints take only a Bearer token)');
    await s.ok("config", "set", "--secret", "sandbox:accessToken", s.emulator.accessToken);
    const { templateID } = await s.outputs();
    const since = lastSeq(s.emulator);
    await s.ok("up", "--yes", "--skip-preview");
    expect(callsSince(s.emulator, since).filter((c) => c.startsWith("POST"))).toEqual([`POST /templates/${templateID}`]);
    expect(await s.outputs()).toMatchObject({ templateID, buildCount: 3 });
    await s.ok("destroy", "--yes", "--skip-preview");
    expect(inventoryOfStack(s.emulator).templates).toEqual([]);
  });
});

describe("an up killed while the template builds", () => {
  const STACK = "e2e-template-build-killed";
  let s: E2eStack;
  let stateDir = "";

  beforeAll(async () => {
    writeContext();
    // Builds end only once released: still running when the next `up` finds it (see interrupted.test.ts).
    s = await startStack(FIXTURE, STACK, { holdBuilds: true });
    await s.configure({ dockerfile: DOCKERFILE, context: "ctx" });
    stateDir = await backendDir(s);
  }, 300_000);

  afterAll(async () => {
    endPluginsOf(stateDir);
    await s?.close();
  });

  test("SIGKILL during the build: the next up adopts that build and waits for it; one request, one start, one upload per step", async () => {
    // In a process group of its own, as a CI job runs it, so the whole group can be killed.
    const run = await killableUp(s, FIXTURE, stateDir);
    const building = () => inventoryOfStack(s.emulator).templates.flatMap((t) => t.builds).some((b) => b.status === "building");
    await until("the build to start", building);
    const [template] = inventoryOfStack(s.emulator).templates;
    const buildID = template!.builds[0]!.buildID;
    await run.kill();

    await s.ok("cancel", "--yes"); // the killed run left the stack locked
    const next = s.running("up", "--yes", "--skip-preview");
    await printed(next, `waiting for build ${buildID}`);
    s.emulator.releaseBuilds();
    const up = await next.result;
    expect(up.code, up.output).toBe(0);
    expect(up.output).toContain(`adopting template ${template!.templateID}`);
    expect(up.output).toContain(`waiting for build ${buildID}`);
    expect(up.output).toMatch(/\+ 1 created/);
    await s.ok("refresh", "--clear-pending-creates", "--yes", "--skip-preview");
    expect(await s.outputs()).toMatchObject({ templateID: template!.templateID, buildID, buildCount: 1 });
    const posts = s.emulator.calls().filter((c) => c.method === "POST").map((c) => c.path.replace(/builds\/.*/, "builds/*"));
    expect(posts.filter((p) => p === "/v3/templates")).toHaveLength(1);
    expect(posts.filter((p) => p.startsWith("/v2/templates/")).length).toBeLessThanOrEqual(2); // a second start, if any, is refused (400)
    expect(s.emulator.calls().filter((c) => c.method === "POST" && c.path.startsWith("/v2/templates/") && c.status === 202)).toHaveLength(1);
    // The killed run's (the build's record and each step's archive), then the re-run's claim of the template it adopted.
    expect(s.emulator.calls().filter((c) => c.method === "PUT")).toHaveLength(4);
    expect(inventoryOfStack(s.emulator).templates.map((t) => t.builds.map((b) => [b.buildID, b.status]))).toEqual([[[buildID, "ready"]]]);
  }, 300_000);
});
