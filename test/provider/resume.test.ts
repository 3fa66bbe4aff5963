/**
 * Resumable provisioning against the emulator's real processes: a command an interrupted run left
 * running is waited for, not started again; one the sandbox recorded as succeeded is skipped; so each
 * command runs once however often `up` is run again. The interrupted run is played by starting the
 * command the way the provider does (same wrapper, same tag) and dropping the stream, as a killed
 * provider would.
 */
import { describe, expect, test } from "vitest";
import { ProcessClient } from "../../sdk/in-sandbox/process";
import { clientOptions, platform } from "../../provider/runtime/context";
import { commandTag, runKey, runNumber, WRAPPER, wrapperEnv } from "../../provider/runtime/resume";
import type { ProvisionInput } from "../../provider/kinds/sandbox/provision";
import { checked, emulatorForFile, runtime } from "./harness";

const emu = emulatorForFile();

const COUNTING = "echo run >> /tmp/resume-count && sleep 2 && echo finished";

/** Lines of /tmp/resume-count in the sandbox: how often the command ran. */
async function runs(sandboxID: string): Promise<number> {
  const { envdAccessToken } = await platform().sandboxes.get(sandboxID);
  const r = await new ProcessClient({ sandboxID, envdAccessToken, options: clientOptions() }).run("cat /tmp/resume-count 2>/dev/null | wc -l");
  return Number(r.stdoutTail.trim());
}

describe("a provisioning run resumes an interrupted one", () => {
  test("a command still running is waited for; once recorded as succeeded, it is skipped", async () => {
    const key = "proj/dev/resumable";
    const bare = await checked("Sandbox", { templateID: "base", timeoutSeconds: 300, __resource: key });
    const { id, outs } = await runtime.create("Sandbox", bare);
    const news = await checked("Sandbox", { templateID: "base", timeoutSeconds: 300, provision: { commands: [{ command: COUNTING }] }, __resource: key }, outs);

    // The interrupted run: started under the provider's tag, then abandoned once it runs. It is the
    // bare sandbox's second provisioning run (its create's ran nothing): number 1.
    expect(runNumber(outs, news as { provision: ProvisionInput })).toBe(1);
    const tag = commandTag(runKey(`${key}#0`, 1), news.provision as ProvisionInput, 0);
    const started = new ProcessClient({ sandboxID: id, envdAccessToken: outs.envdAccessToken as string, options: clientOptions() }).start({ cmd: "/bin/bash", args: ["-l", "-c", WRAPPER], envs: wrapperEnv(COUNTING, tag), tag, timeoutMs: 30_000 });
    for await (const event of started) if (event.type === "start") break;

    const resumed = await runtime.update("Sandbox", id, outs, news);
    expect(resumed.outs).toMatchObject({ provisioned: true, provisionResults: [{ command: COUNTING, exitCode: 0, stdoutTail: expect.stringContaining("finished") }] });
    expect(await runs(id)).toBe(1);

    // Run again (as after a later failure): the sandbox recorded it as succeeded, so it is not repeated.
    const again = await runtime.update("Sandbox", id, { ...resumed.outs, provisioned: false }, news);
    expect(again.outs).toMatchObject({ provisioned: true, provisionResults: [{ command: COUNTING, exitCode: 0, durationMs: 0 }] });
    expect(await runs(id)).toBe(1);

    // Changed provisioning is a new run: its commands run.
    const changed = await checked("Sandbox", { ...news, provision: { commands: [{ command: COUNTING }, { command: "true" }] } }, again.outs);
    await runtime.update("Sandbox", id, again.outs, changed);
    expect(await runs(id)).toBe(2);
    await runtime.remove("Sandbox", id, again.outs);
  });

  test("a finished run is never taken for an interrupted one: A, then B, then A again runs A's commands", async () => {
    const key = "proj/dev/rollback";
    const args = (command: string) => ({ templateID: "base", timeoutSeconds: 300, provision: { commands: [{ command }] }, __resource: key });
    const a = "echo A >> /tmp/resume-count";
    let { id, outs } = await runtime.create("Sandbox", await checked("Sandbox", args(a)));
    for (const command of ["echo B >> /tmp/resume-count", a]) {
      ({ outs } = await runtime.update("Sandbox", id, outs, await checked("Sandbox", args(command), outs)));
      expect(outs).toMatchObject({ provisioned: true, provisionResults: [{ command, exitCode: 0 }] });
      expect((outs.provisionResults as { durationMs: number }[])[0]!.durationMs).toBeGreaterThan(0); // run, not skipped
    }
    const r = await new ProcessClient({ sandboxID: id, envdAccessToken: outs.envdAccessToken as string, options: clientOptions() }).run("cat /tmp/resume-count");
    expect(r.stdoutTail).toBe("A\nB\nA\n");
    await runtime.remove("Sandbox", id, outs);
  });
});
