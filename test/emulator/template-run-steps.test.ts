/**
 * Conformance: the commands a template build runs (RUN steps, then the start and ready commands at
 * finalize), through the official `e2b` SDK's Template.build, unmodified. They run in an isolated
 * build sandbox over the template's files (this suite's machines isolate: see isolation.test.ts),
 * and what they leave is in sandboxes made from the template.
 */
import { BuildError, Sandbox, Template, waitForFile, type ConnectionOpts } from "e2b";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";

/** Short, so the test of a ready command that never succeeds ends quickly (the service allows 10 minutes). */
const READY_TIMEOUT_MS = 3000;

let emu: Emulator;
let opts: ConnectionOpts;
const sandboxes: Sandbox[] = [];

beforeAll(async () => {
  emu = await createEmulator({ buildDelayMs: 100, readyTimeoutMs: READY_TIMEOUT_MS });
  opts = { apiKey: emu.apiKey, apiUrl: emu.apiUrl, sandboxUrl: emu.sandboxUrl };
});
afterAll(async () => {
  for (const s of sandboxes) await s.kill().catch(() => undefined);
  await emu?.close();
});

async function build(template: Parameters<typeof Template.build>[0], name: string): Promise<{ logs: string[]; error: unknown }> {
  const logs: string[] = [];
  const error = await Template.build(template, name, { ...opts, onBuildLogs: (e) => void logs.push(e.message) }).then(() => undefined, (e: unknown) => e);
  return { logs, error };
}

async function start(name: string): Promise<Sandbox> {
  const sandbox = await Sandbox.create(name, { ...opts, timeoutMs: 60_000 });
  sandboxes.push(sandbox);
  return sandbox;
}

describe("RUN steps", () => {
  it("run as the step's user, in its WORKDIR with its ENV, and their files are the template's", async () => {
    expect(emu.isolation.mode).toBe("namespaces");
    const template = Template()
      .fromImage("e2bdev/base")
      .setEnvs({ GREETING: "hi" })
      .setWorkdir("/home/user/work")
      .runCmd('echo "$GREETING $(whoami) $(pwd)" | tee made.txt')
      .runCmd("mkdir -p /opt/tool && echo root-made > /opt/tool/conf && ln -s /etc/hostname /opt/tool/link", { user: "root" });
    const { logs, error } = await build(template, "run-writes");
    expect(error).toBeUndefined();
    expect(logs).toContain("[builder 3/4] [stdout]: hi user /home/user/work");
    const sandbox = await start("run-writes");
    expect(await sandbox.files.read("/home/user/work/made.txt")).toBe("hi user /home/user/work\n");
    const seen = await sandbox.commands.run("cat /opt/tool/conf; stat -c '%U %a' /opt/tool/conf /home/user/work/made.txt; readlink /opt/tool/link");
    expect(seen.stdout).toBe("root-made\nroot 644\nuser 644\n/etc/hostname\n");
  });

  it("keeps a RUN's files when a rebuild takes the step from the cache", async () => {
    const template = () => Template().fromImage("e2bdev/base").runCmd("echo cached > /home/user/kept.txt");
    expect((await build(template(), "run-cached")).error).toBeUndefined();
    const again = await build(template(), "run-cached");
    expect(again.logs).toContainEqual(expect.stringMatching(/^CACHED \[builder 1\/1\] RUN echo cached > \/home\/user\/kept\.txt \[[0-9a-f]{64}\]$/));
    expect(again.logs.some((l) => l.startsWith("[builder"))).toBe(false);
    expect(await (await start("run-cached")).files.read("/home/user/kept.txt")).toBe("cached\n");
  });

  it("fails the build when a RUN names a user the sandbox does not have", async () => {
    const { error } = await build(Template().fromImage("e2bdev/base").runCmd("true", { user: "ghost" }), "run-ghost");
    expect(error).toBeInstanceOf(BuildError);
    expect((error as Error).message).toBe("failed to run command 'true': command failed: unauthenticated: invalid username: 'ghost'");
  });

  it("fails at the step whose command fails, with its output in the log, and runs no later step", async () => {
    const template = Template().fromImage("e2bdev/base").runCmd("echo before; echo trouble >&2; exit 4").runCmd("echo never");
    const { logs, error } = await build(template, "run-failing");
    expect(error).toBeInstanceOf(BuildError);
    expect((error as Error).message).toBe("failed to run command 'echo before; echo trouble >&2; exit 4': exit status 4");
    expect(logs).toContain("[builder 1/2] [stdout]: before");
    expect(logs).toContain("[builder 1/2] [stderr]: trouble");
    expect(logs.some((l) => l.includes("echo never"))).toBe(false);
  });
});

describe("ENV steps", () => {
  // The environment a command was started with, before its login shell's profile ran: this host's
  // /etc/profile (Debian's) sets PATH again, as a Debian image's does on the service.
  const startedWith = "tr '\\0' '\\n' < /proc/$$/environ | grep -E '^(PATH|B|Q)=' | sort";
  const path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

  it("expand their values as the builder's printf does, against envd's environment, not earlier steps'; RUN and sandboxes get the values", async () => {
    const template = Template()
      .fromDockerfile("FROM ubuntu:22.04\nENV PATH ${PATH}:/my/path\nENV A=1")
      .setEnvs({ B: "$A-x", Q: 'say "hi" $(date) `id` \\n ${HOME:-none}' })
      .runCmd(startedWith, { user: "root" });
    const { logs, error } = await build(template, "env-expanded");
    expect(error).toBeUndefined();
    // The builder appends the standard PATH to a PATH the ENV set (sandboxtools/command.go).
    const run = logs.flatMap((l) => /^\[builder \d+\/\d+\] \[stdout\]: (.*)$/.exec(l)?.slice(1) ?? []);
    expect(run).toEqual(["B=-x", `PATH=${path}:/my/path:${path}`, 'Q=say "hi" $(date) `id` \\n /root']);
    const sandbox = await start("env-expanded");
    expect((await sandbox.commands.run(startedWith)).stdout).toBe(`B=-x\nPATH=${path}:/my/path\nQ=say "hi" $(date) \`id\` \\n /root\n`);
  });

  it("fail the build on an expansion the emulator does not know, naming the variable as the builder does", async () => {
    const unknown = await build(Template().fromImage("ubuntu:22.04").setEnvs({ LEN: "${#PATH}" }), "env-unknown");
    expect((unknown.error as Error).message).toMatch(/^failed to evaluate environment variable LEN: the emulator cannot expand "\$\{#PATH\}": /);
  });
});

describe("start and ready commands", () => {
  it("run at finalize, the start command's output in the build log", async () => {
    const template = Template().fromImage("e2bdev/base").setStartCmd("echo serving; sleep 1; touch /home/user/up; sleep 60", waitForFile("/home/user/up"));
    const { logs, error } = await build(template, "start-logged");
    expect(error).toBeUndefined();
    const finalize = logs.slice(logs.indexOf("Finalizing template"));
    expect(finalize).toEqual(expect.arrayContaining([
      "Running start command: echo serving; sleep 1; touch /home/user/up; sleep 60",
      "[start] [stdout]: serving",
      "Template is ready",
    ]));
    expect(finalize.indexOf("Template is ready")).toBeGreaterThan(finalize.indexOf("[start] [stdout]: serving"));
  });

  it("fail the build when the ready command never succeeds within the ready timeout", async () => {
    const began = Date.now();
    const { logs, error } = await build(Template().fromImage("e2bdev/base").setStartCmd("sleep 60", "test -f /nothing"), "ready-never");
    expect(error).toBeInstanceOf(BuildError);
    expect((error as Error).message).toMatch(/^ready command failed: ready command timed out after \d+(\.\d+)?s$/);
    expect(Date.now() - began).toBeGreaterThanOrEqual(READY_TIMEOUT_MS);
    expect(logs).toContain("Waiting for template to be ready: test -f /nothing");
    expect(logs).not.toContain("Template is ready");
  });

  it("fail the build with the start command's status when it fails before the template is ready", async () => {
    const { logs, error } = await build(Template().fromImage("e2bdev/base").setStartCmd("exit 7", "test -f /nothing"), "start-fails");
    expect(error).toBeInstanceOf(BuildError);
    expect((error as Error).message).toBe("start command failed: error running start command: exit status 7");
    // The failure cancels the wait at once, which the service's loop reports as ready first.
    expect(logs.slice(-3)).toEqual(["Template is ready", "start command failed: error running start command: exit status 7", "Build finished"]);
  });

  it("run a Dockerfile's CMD as the start command, so a server that is not there fails the build", async () => {
    const began = Date.now();
    const { logs, error } = await build(Template().fromDockerfile('FROM node:22\nCMD ["node", "server.js"]'), "start-dockerfile");
    expect((error as Error).message).toBe("start command failed: error running start command: exit status 1");
    expect(logs).toContain("Running start command: node server.js");
    expect(logs.some((l) => l.startsWith("[start] [stderr]: Error: Cannot find module '/home/user/server.js'"))).toBe(true);
    // Not the 20 s the SDK's default ready command (`sleep 20`) waits: the failure cancels it.
    expect(Date.now() - began).toBeLessThan(15_000);
  });
});
