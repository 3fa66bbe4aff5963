/**
 * envd's own variables through E2B's official SDK (`e2b`, unmodified): `E2B_SANDBOX`,
 * `E2B_SANDBOX_ID` and `E2B_TEMPLATE_ID` in every process and in `/run/e2b/` (infra:
 * packages/envd/main.go, internal/host/mmds.go), the create's `envVars` unable to replace them
 * (internal/utils/envvars.go), and a fork or a snapshot's sandbox holding its own ID
 * (docs/service.md#envds-own-variables). This suite's machines isolate (see isolation.test.ts);
 * envd-process.test.ts checks the unisolated mode.
 */
import { Sandbox } from "e2b";
import { describe, expect, it } from "vitest";
import { useOfficialSandbox } from "./official-helpers";

const bench = useOfficialSandbox();

const ECHO = 'echo "$E2B_SANDBOX_ID $E2B_TEMPLATE_ID $E2B_SANDBOX"';
const CAT = "cd /run/e2b && cat .E2B_SANDBOX_ID; echo; cat .E2B_TEMPLATE_ID; echo; cat .E2B_SANDBOX; echo; stat -c '%n %U %a' .E2B_SANDBOX .E2B_SANDBOX_ID .E2B_TEMPLATE_ID";

/** What both the environment and the files of `sandbox` must say. */
async function expectOwnValues(sandbox: Sandbox, templateID: string): Promise<void> {
  const id = sandbox.sandboxId;
  expect((await sandbox.commands.run(ECHO)).stdout).toBe(`${id} ${templateID} true\n`);
  expect((await sandbox.commands.run(ECHO, { user: "root" })).stdout).toBe(`${id} ${templateID} true\n`);
  expect((await sandbox.commands.run(CAT)).stdout).toBe(
    `${id}\n${templateID}\ntrue\n.E2B_SANDBOX root 444\n.E2B_SANDBOX_ID root 644\n.E2B_TEMPLATE_ID root 644\n`,
  );
}

describe("envd's own variables", () => {
  it("are in every process and under /run/e2b, the template's ID as the API reports it", async () => {
    expect(bench.emu.isolation.mode).toBe("namespaces");
    const { templateId } = await Sandbox.getInfo(bench.sandbox.sandboxId, bench.opts);
    await expectOwnValues(bench.sandbox, templateId);
    // The file API reads the same files, before any command ran in a new sandbox too.
    const fresh = await Sandbox.create("base", { ...bench.opts, timeoutMs: 30_000 });
    try {
      expect(await fresh.files.read("/run/e2b/.E2B_SANDBOX_ID")).toBe(fresh.sandboxId);
    } finally {
      await fresh.kill();
    }
  });

  it("are not replaced by a create's envVars, which are accepted and keep their other keys; a command's own envs still win", async () => {
    const envs = { E2B_SANDBOX_ID: "x", E2B_TEMPLATE_ID: "y", E2B_SANDBOX: "false", MINE: "kept" };
    const sandbox = await Sandbox.create("base", { ...bench.opts, envs, timeoutMs: 30_000 });
    try {
      const { templateId } = await Sandbox.getInfo(sandbox.sandboxId, bench.opts);
      await expectOwnValues(sandbox, templateId);
      expect((await sandbox.commands.run('echo "$MINE"')).stdout).toBe("kept\n");
      expect((await sandbox.commands.run(ECHO, { envs: { E2B_SANDBOX_ID: "per-command" } })).stdout).toBe(`per-command ${templateId} true\n`);
    } finally {
      await sandbox.kill();
    }
  });

  it("give a fork its own ID, and a snapshot's sandbox its own ID and the snapshot as its template", async () => {
    const { templateId } = await Sandbox.getInfo(bench.sandbox.sandboxId, bench.opts);
    const [fork] = await bench.sandbox.fork();
    if (!(fork instanceof Sandbox)) throw new Error(`the fork failed: ${String(fork)}`);
    try {
      expect(fork.sandboxId).not.toBe(bench.sandbox.sandboxId);
      await expectOwnValues(fork, templateId);
    } finally {
      await fork.kill();
    }
    const snapshot = await bench.sandbox.createSnapshot();
    const restored = await Sandbox.create(snapshot.snapshotId, { ...bench.opts, timeoutMs: 30_000 });
    try {
      const info = await Sandbox.getInfo(restored.sandboxId, bench.opts);
      await expectOwnValues(restored, info.templateId);
      expect(info.templateId).not.toBe(templateId);
    } finally {
      await restored.kill();
    }
  });
});
