/**
 * A Template whose Dockerfile uses what e2b 2.63 reads (heredocs, ARG, ignored flags), through the
 * provider's methods against the emulator: `check` says in the resource's log what the conversion
 * ignored (once per resource, however many times it runs) and, for `buildSystem: "v1"`, that the
 * service's newest clients dropped those routes; the build the provider sends leaves, in a sandbox
 * made from the template, what the Dockerfile wrote (heredoc RUN, heredoc COPY as root) and the
 * context files its `.dockerignore` kept (negation and nested paths included).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Sandbox } from "e2b";
import { afterAll, afterEach, beforeEach, describe, expect, test } from "vitest";
import { setLogSink } from "../../provider/runtime/log";
import { V1_NOTICE } from "../../provider/kinds/template/derive";
import { checked, emulatorForFile, runtime } from "./harness";

const emu = emulatorForFile();
const ctx = mkdtempSync(join(tmpdir(), "template-newest-"));
mkdirSync(join(ctx, "app", "node_modules", "keep"), { recursive: true });
mkdirSync(join(ctx, "app", "node_modules", "drop"), { recursive: true });
writeFileSync(join(ctx, "app", "main.py"), "print('hi')\n");
writeFileSync(join(ctx, "app", "notes.md"), "notes\n");
writeFileSync(join(ctx, "app", "node_modules", "keep", "k.js"), "kept\n");
writeFileSync(join(ctx, "app", "node_modules", "drop", "d.js"), "dropped\n");
writeFileSync(join(ctx, ".dockerignore"), "**/node_modules\n!app/node_modules/keep\napp/*.md\n");
afterAll(() => rmSync(ctx, { recursive: true, force: true }));

let lines: string[] = [];
beforeEach(() => {
  lines = [];
  setLogSink((line) => lines.push(line));
});
afterEach(() => setLogSink((line) => process.stderr.write(`${line}\n`)));

const DOCKERFILE = [
  "FROM e2bdev/base",
  "ARG GREETING=hello",
  "COPY --chown=user:user app /home/user/app",
  "RUN --mount=type=cache,target=/root/.cache <<EOF",
  'echo "$GREETING from a heredoc" > /home/user/heredoc.txt',
  "EOF",
  "COPY <<EOF /home/user/conf/settings.toml",
  'greeting = "${GREETING}"',
  "EOF",
  "EXPOSE 8080",
  "HEALTHCHECK CMD true",
  "",
].join("\n");

describe("check", () => {
  test("says in the resource's log what the conversion ignored, once per resource", async () => {
    const key = "proj/dev/newest-warnings";
    const inputs = await checked("Template", { dockerfile: DOCKERFILE, context: ctx, __resource: key });
    expect(inputs.buildSteps).toEqual(expect.arrayContaining([
      "ENV GREETING=hello",
      'RUN echo "$GREETING from a heredoc" > /home/user/heredoc.txt',
      expect.stringMatching(/^RUN \(as root\) E2B_HEREDOC_DEST=\/home\/user\/conf\/settings.toml\n/),
    ]));
    expect(lines).toEqual([
      "[Template newest-warnings] warning: Dockerfile line 4: RUN: --mount is ignored (the service's builder does not support it: the command runs without the mount)",
      "[Template newest-warnings] warning: Dockerfile line 11: HEALTHCHECK: is ignored (a sandbox has no health check)",
    ]);
    await checked("Template", { dockerfile: DOCKERFILE, context: ctx, __resource: key });
    expect(lines).toHaveLength(2);
  });

  test('with buildSystem "v1": says that the newest clients dropped those routes, and nothing of the conversion', async () => {
    await checked("Template", { dockerfile: DOCKERFILE, buildSystem: "v1", __resource: "proj/dev/newest-v1" });
    expect(lines).toEqual([`[Template newest-v1] warning: ${V1_NOTICE}`]);
    expect(V1_NOTICE).toContain("gone from the service's newest clients");
  });
});

describe("create", () => {
  test("builds what the Dockerfile says: heredoc RUN and COPY, ARG values, the files the .dockerignore keeps", async () => {
    // Where sandboxes are not isolated, the emulator does not run a build's commands (README, Emulator).
    expect(emu().isolation.mode).toBe("namespaces");
    const inputs = await checked("Template", { dockerfile: DOCKERFILE, context: ctx, alias: "newest-build", __resource: "proj/dev/newest-build" });
    const { outs } = await runtime.create("Template", inputs);
    expect(outs).toMatchObject({ buildStatus: "ready" });
    const sandbox = await Sandbox.create("newest-build", { apiKey: emu().apiKey, apiUrl: emu().apiUrl, sandboxUrl: emu().sandboxUrl, timeoutMs: 60_000 });
    try {
      expect(await sandbox.files.read("/home/user/heredoc.txt")).toBe("hello from a heredoc\n");
      expect(await sandbox.files.read("/home/user/conf/settings.toml")).toBe('greeting = "hello"\n');
      const listed = await sandbox.commands.run("cd /home/user/app && find . -type f | sort; stat -c '%U' /home/user/conf/settings.toml");
      expect(listed.stdout).toBe("./main.py\n./node_modules/keep/k.js\nroot\n");
    } finally {
      await sandbox.kill();
    }
  });
});
