/**
 * A Template whose Dockerfile holds a stack config secret, through the real engine, on both front ends:
 * `app`'s Dockerfile is `pulumi.interpolate`d around a private package index token (pip's
 * --index-url, and a RUN echo that prints it in the build log), `private`'s is a whole Dockerfile kept
 * as a secret of several lines. What `check` derives (`buildSteps`) is secret in state and outputs,
 * `preview --diff` shows it as `[secret]`, and every build log line hides it; through the dynamic
 * provider a Sandbox's provisioning prints the token alone, hidden too. The secret scan on close
 * (./secrets.ts) then finds none of the token, the Dockerfile or any of its lines in the CLI output, the
 * exported state, or the backend's files with their history and backups. Tests of a describe share one
 * stack and run in order.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ROOT, startStack, type E2eStack } from "./harness";
import { MIN_SECRET_LENGTH } from "./secrets";

const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "template-secret");
const TOKEN = "pypi-index-token-1a2b3c4d";
const NEW_TOKEN = "pypi-index-token-9e8f7a6b";
const PRIVATE_DOCKERFILE = [
  "FROM registry.internal.example/python:3.12",
  "ENV PRIVATE_MIRROR=https://mirror.internal.example/private-4d5e",
  "RUN echo private-dockerfile-line-6f7a8b",
  "",
].join("\n");

type StateResource = { type: string; urn: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> };
const ciphertext = { ciphertext: expect.any(String) };

for (const frontEnd of ["dynamic", "plugin"] as const) {
  describe(`a Dockerfile around a config secret, through the ${frontEnd === "dynamic" ? "dynamic provider" : "native plugin"}`, () => {
    let s: E2eStack;

    beforeAll(async () => {
      s = await startStack(FIXTURE, `e2e-template-secret-${frontEnd}`);
      await s.ok("config", "set", "frontEnd", frontEnd);
      await s.ok("config", "set", "--secret", "indexToken", s.secret(TOKEN, "the index token"));
      await s.ok("config", "set", "--secret", "privateDockerfile", s.secret(PRIVATE_DOCKERFILE, "the private Dockerfile"));
      // Logs come a line at a time: each line of the secret of several lines is a secret too.
      for (const line of PRIVATE_DOCKERFILE.split("\n").filter((l) => l.length >= MIN_SECRET_LENGTH)) s.secret(line, `a line of the private Dockerfile (${line.length} chars)`);
    }, 300_000);

    afterAll(async () => {
      await s?.close();
    });

    test("preview --diff shows the derived steps as [secret]; up's build log shows each line holding a secret as [redacted]", async () => {
      const preview = await s.ok("preview", "--diff");
      expect(preview.output).toMatch(/buildSteps\s*: \[secret\]/);
      expect(preview.output).not.toContain(TOKEN);
      const up = await s.ok("up", "--yes", "--skip-preview");
      expect(up.output).toMatch(frontEnd === "dynamic" ? /\+ 4 created/ : /\+ 3 created/);
      // The step that pip runs, and the echo of the token, as the builder logs them (`[builder 2/n] RUN ... [<layer hash>]`),
      // without the layer's hash, which covers the step's words.
      expect(up.output).toMatch(/\[Template app\] step \d+: \[builder \d+\/\d+\] \[redacted\]/);
      expect(up.output).toMatch(/\[Template private\] step \d+: \[builder \d+\/\d+\] \[redacted\]/);
      expect(up.output).not.toMatch(/\[redacted\] \[[0-9a-f]{64}\]/);
      expect(up.output).not.toContain(TOKEN);
      expect(up.output).not.toContain("private-dockerfile-line-6f7a8b");
      // The token alone, as a command prints it: hidden as the config secret inside the command.
      if (frontEnd === "dynamic") expect(up.output).toContain("[Sandbox box] provision 1/1 | [redacted]");
    });

    test("state keeps each Template's Dockerfile and buildSteps encrypted, inputs and outputs; stack outputs show [secret]", async () => {
      const state = (JSON.parse(await s.exported()) as { deployment: { resources: StateResource[] } }).deployment.resources;
      const templates = state.filter((r) => r.type.endsWith("sandbox:Template") || r.type === "sandbox:index:Template");
      expect(templates.map((r) => r.urn.split("::").pop()).sort()).toEqual(["app", "private"]);
      for (const t of templates) {
        expect(t.inputs, t.urn).toMatchObject({ dockerfile: ciphertext, buildSteps: ciphertext });
        expect(t.outputs, t.urn).toMatchObject({ dockerfile: ciphertext, buildSteps: ciphertext });
      }
      const out = await s.outputs();
      expect(out).toMatchObject({ appSteps: "[secret]", privateSteps: "[secret]", appBuildID: expect.any(String) });
      // Secret, not lost: the steps are there for whoever may read them.
      const shown = await s.outputs({ showSecrets: true });
      expect(shown.appSteps).toContain(`RUN pip install --index-url https://ci:${TOKEN}@pypi.example/simple private-pkg || true`);
    });

    test("a new token: preview --diff plans one update and shows the steps as [secret]; up rebuilds and names the changed steps [redacted]", async () => {
      await s.ok("config", "set", "--secret", "indexToken", s.secret(NEW_TOKEN, "the new index token"));
      const preview = await s.ok("preview", "--diff");
      // The engine cannot compare two secrets for the reader: it lists the steps, both sides hidden.
      expect(preview.output).toMatch(frontEnd === "dynamic" ? /~ 2 to update/ : /~ 1 to update/);
      expect(preview.output).toMatch(/~ \S+Template: \(update\)[^]*buildSteps\s*: \[secret\]/);
      expect(preview.output).not.toContain(TOKEN);
      expect(preview.output).not.toContain(NEW_TOKEN);
      const up = await s.ok("up", "--yes", "--skip-preview");
      expect(up.output).toMatch(frontEnd === "dynamic" ? /~ 2 updated/ : /~ 1 updated/);
      expect(up.output).toContain("[Template app] changed step: [redacted]");
      expect(up.output).not.toContain(NEW_TOKEN);
      if (frontEnd === "dynamic") expect(up.output).toContain("[Sandbox box] provision 1/1 | [redacted]");
    });

    test("the scan on close reads the backend's checkpoint history and backups too", () => {
      const files = s.backendFiles();
      expect(files.some((f) => f.includes(`.pulumi/history/template-secret/e2e-template-secret-${frontEnd}/`)), files.join("\n")).toBe(true);
      expect(files.some((f) => f.includes(".pulumi/backups/")), files.join("\n")).toBe(true);
    });
  });
}
