/**
 * A Sandbox create that fails after the service gave the sandbox its ID, through the real engine
 * (issue 47, "read in the code"): a files-only pause refused with a 503, because the guest agent
 * stopped answering while the provisioning ran. `up` fails saying the sandbox was made and is
 * recorded; `pulumi stack export` holds it; the next `up`, once the agent answers again, updates that
 * same sandbox (its provisioning not run again) and pauses it, and no second sandbox is ever made.
 * Before, the failure left the sandbox unrecorded and claimed, and the next `up` made another one.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { inventoryOfStack, startStack, type E2eStack } from "./harness";

const FIXTURE = join(__dirname, "fixtures", "any-resource");

let s: E2eStack;

beforeAll(async () => {
  s = await startStack(FIXTURE, "e2e-partial-create");
  // One retry of the refused pause, not nine: the path is the same, without the backoff's ~20 s.
  await s.configure({
    kind: "Sandbox",
    "sandbox:maxRetries": "1",
    args: JSON.stringify({ templateID: "base", timeoutSeconds: 600, state: "paused", pauseMode: "filesystem", provision: { commands: [{ command: "sleep 2" }] } }),
  });
}, 120_000);

afterAll(async () => {
  await s?.close();
});

/** Switches the sandbox's guest agent (envd) to answer or not, as the emulator's admin route does. */
async function envdAnswers(sandboxID: string, responsive: boolean): Promise<void> {
  const res = await fetch(`${s.emulator.apiUrl}/_emulator/sandboxes/${sandboxID}/envd`, {
    method: "POST",
    headers: { "X-API-Key": s.emulator.apiKey, "Content-Type": "application/json" },
    body: JSON.stringify({ responsive }),
  });
  expect(res.status).toBe(204);
}

const sandboxes = () => inventoryOfStack(s.emulator).sandboxes;

test("a pause refused once the sandbox exists: up fails and records it; the next up pauses that same sandbox", async () => {
  const running = s.running("up", "--yes", "--skip-preview");
  // The provisioning's two seconds let the switch land between the create and the pause.
  for (const deadline = Date.now() + 120_000; sandboxes().length === 0; await new Promise((r) => setTimeout(r, 25))) {
    if (Date.now() > deadline || running.ended()) throw new Error(`no sandbox was made:\n${running.output()}`);
  }
  const [made] = sandboxes();
  await envdAnswers(made!.sandboxID, false);
  const failed = await running.result;
  expect(failed.code, failed.output).not.toBe(0);
  const oneLine = failed.output.replace(/\s+/g, " ");
  expect(oneLine).toContain(`Sandbox ${made!.sandboxID} was made, but its create failed after: POST /sandboxes/{id}/pause failed (503 unavailable)`);
  expect(oneLine).toContain("It is recorded in the stack's state: the next `pulumi up` finishes it, `pulumi destroy` deletes it.");
  expect(await s.exported()).toContain(made!.sandboxID);
  expect(sandboxes().map((x) => [x.sandboxID, x.state])).toEqual([[made!.sandboxID, "running"]]);

  await envdAnswers(made!.sandboxID, true);
  const preview = await s.ok("preview", "--diff");
  expect(preview.output).toMatch(/~ 1 to update/);
  const up = await s.ok("up", "--yes", "--skip-preview");
  expect(up.output).toContain("provision 1/1: $ sleep 2 succeeded in an earlier, interrupted run; not run again");
  expect(sandboxes().map((x) => [x.sandboxID, x.state])).toEqual([[made!.sandboxID, "paused"]]);
  expect(await s.outputs()).toMatchObject({ id: made!.sandboxID });

  await s.ok("destroy", "--yes", "--skip-preview");
  expect(sandboxes()).toEqual([]);
});
