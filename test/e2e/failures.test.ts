/**
 * Failures inside the sandbox and the builder, through the real engine: a provisioning command that
 * exits non-zero, with onFailure keep and delete, and a template build that fails. `up` must fail
 * saying why (the command or step, its exit code, the last lines of output), record what was made
 * (or, with onFailure "delete", nothing), and the next `up` must finish the job in the same resource.
 * The tests share one stack of the fleet fixture and run in order.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { lastSeq, startStack, type E2eStack } from "./harness";
import { FLEET, inventoryIDs, parseState, resourceNamed } from "./fixtures/fleet/state";

/** Writes a line to each stream, then fails: the error must quote both lines and the exit code. */
const FAILING = 'echo "unpacking toolchain"; echo "disk quota exceeded on /home/user" >&2; exit 7';
const GOOD_DOCKERFILE = "FROM e2bdev/base:latest\nRUN echo toolchain ready";
const BAD_DOCKERFILE = "FROM e2bdev/base:latest\nRUN echo toolchain ready\nRUN exit 3";

let s: E2eStack;

beforeAll(async () => {
  s = await startStack(FLEET, "e2e-failures");
  // Sandboxes from the built-in template first: no build in the way of the provisioning tests.
  await s.configure({ templates: "0", volumes: "0", sandboxes: "1", provisionCommand: FAILING });
}, 300_000);

afterAll(async () => {
  await s?.close();
});

/** The state, secret outputs (provisionResults) in plaintext. */
async function state() {
  return parseState(await s.exported({ showSecrets: true }));
}

test("a failing provisioning command fails up with the command, its exit code and its last output, and the sandbox is recorded", async () => {
  const up = await s.pulumi("up", "--yes", "--skip-preview");
  expect(up.code).not.toBe(0);
  expect(up.output).toContain(`provisioning command 1 \`${FAILING}\` exited with code 7; last output:`);
  expect(up.output).toContain("unpacking toolchain");
  expect(up.output).toContain("disk quota exceeded on /home/user");
  expect(up.output).toContain("The sandbox is kept; the next `pulumi up` runs the provisioning again.");
  const box = resourceNamed(await state(), "box-0");
  expect(box?.outputs).toMatchObject({ provisioned: false, provisionResults: [{ exitCode: 7, stdoutTail: "unpacking toolchain\n" }] });
  expect(inventoryIDs(s.emulator).sandboxes).toEqual([box!.id]);
});

test("up again without a change runs the provisioning again in the same sandbox, and fails the same way", async () => {
  const before = resourceNamed(await state(), "box-0")!.id;
  const since = lastSeq(s.emulator);
  const up = await s.pulumi("up", "--yes", "--skip-preview");
  expect(up.code).not.toBe(0);
  expect(up.output).toContain(`Sandbox ${before}: provisioning command 1 \`${FAILING}\` exited with code 7`);
  expect(up.output).toContain("The next `pulumi up` runs the provisioning again.");
  expect(s.emulator.calls(since).filter((c) => c.method === "POST" && c.path === "/v2/sandboxes")).toEqual([]);
  expect(resourceNamed(await state(), "box-0")).toMatchObject({ id: before, outputs: { provisioned: false } });
});

test("fixing the command, the next up provisions the same sandbox and succeeds", async () => {
  const before = resourceNamed(await state(), "box-0")!.id;
  // envd's own E2B_SANDBOX_ID, as a provisioning command reads it (docs/service.md#envds-own-variables).
  await s.ok("config", "set", "provisionCommand", 'echo "provisioned after the fix in $E2B_SANDBOX_ID"');
  const since = lastSeq(s.emulator);
  const up = await s.ok("up", "--yes", "--skip-preview");
  expect(up.output).toMatch(/~ 1 updated/);
  const out = await s.outputs({ showSecrets: true });
  expect(out.sandboxIDs).toEqual([before]);
  expect(out.provisioned).toEqual([true]);
  expect(out.provisionResults).toMatchObject([[{ exitCode: 0, stdoutTail: `provisioned after the fix in ${before}\n` }]]);
  expect(s.emulator.calls(since).filter((c) => c.method === "POST" && c.path === "/v2/sandboxes")).toEqual([]);
  expect(inventoryIDs(s.emulator).sandboxes).toEqual([before]);
});

test('with onFailure "delete", a failing command fails up, the sandbox is killed, and nothing is recorded', async () => {
  await s.ok("config", "set", "sandboxes", "0");
  await s.ok("up", "--yes", "--skip-preview"); // the kept sandbox goes: the next one is made by create
  await s.configure({ sandboxes: "1", onFailure: "delete", provisionCommand: FAILING });
  const since = lastSeq(s.emulator);
  const up = await s.pulumi("up", "--yes", "--skip-preview");
  expect(up.code).not.toBe(0);
  expect(up.output).toContain("exited with code 7");
  expect(up.output).toContain("disk quota exceeded on /home/user");
  expect(up.output).toContain('The sandbox was deleted (provision.onFailure: "delete").');
  const made = s.emulator.calls(since).filter((c) => c.method === "POST" && c.path === "/v2/sandboxes");
  const killed = s.emulator.calls(since).filter((c) => c.method === "DELETE" && c.path.startsWith("/sandboxes/"));
  expect([made.length, killed.length]).toEqual([1, 1]);
  expect(inventoryIDs(s.emulator).sandboxes).toEqual([]);
  expect((await state()).sandboxes).toEqual([]);
});

test("a failing template build fails up with the reason and the last log lines, and the template is recorded", async () => {
  await s.configure({ sandboxes: "0", templates: "1", dockerfile: BAD_DOCKERFILE });
  const up = await s.pulumi("up", "--yes", "--skip-preview");
  expect(up.code).not.toBe(0);
  expect(up.output).toMatch(/build \S+ failed at step \d+: failed to run command 'exit 3': exit status 3/);
  expect(up.output).toContain("Last log lines:");
  expect(up.output).toContain("[error] failed to run command 'exit 3': exit status 3");
  const tpl = resourceNamed(await state(), "tpl-0");
  expect(tpl?.outputs).toMatchObject({ buildStatus: "error", buildCount: 1 });
  expect(String(tpl?.outputs?.lastBuildError)).toContain("exit status 3");
  expect(inventoryIDs(s.emulator).templates).toEqual([tpl!.id]);
});

test("up again without a change rebuilds the same template and fails again with the same reason: nothing is stuck", async () => {
  const id = resourceNamed(await state(), "tpl-0")!.id!;
  const since = lastSeq(s.emulator);
  const up = await s.pulumi("up", "--yes", "--skip-preview");
  expect(up.code).not.toBe(0);
  expect(up.output).toContain(`rebuilding template ${id} (the last build failed)`);
  expect(up.output).toMatch(/build \S+ failed at step \d+: failed to run command 'exit 3': exit status 3/);
  const posts = s.emulator.calls(since).filter((c) => c.method === "POST").map((c) => c.path.replace(/builds\/[0-9a-f-]+$/, "builds/*"));
  expect(posts).toEqual(["/v3/templates", `/v2/templates/${id}/builds/*`]); // a new build of the same template
  const tpl = resourceNamed(await state(), "tpl-0");
  expect(tpl?.id).toBe(id);
  expect(tpl?.outputs).toMatchObject({ buildStatus: "error", buildCount: 2 });
});

test("with a good Dockerfile, up rebuilds the same template and succeeds", async () => {
  const id = resourceNamed(await state(), "tpl-0")!.id!;
  await s.ok("config", "set", "dockerfile", GOOD_DOCKERFILE);
  const up = await s.ok("up", "--yes", "--skip-preview");
  expect(up.output).toMatch(/~ 1 updated/);
  const tpl = resourceNamed(await state(), "tpl-0");
  expect(tpl?.id).toBe(id);
  expect(tpl?.outputs).toMatchObject({ buildStatus: "ready", buildCount: 3 });
  expect(tpl?.outputs?.lastBuildError).toBeUndefined();
  expect(s.emulator.state.templates().find((t) => t.templateID === id)?.builds.map((b) => b.status)).toEqual(["error", "error", "ready"]);
  const again = await s.ok("up", "--yes", "--skip-preview");
  expect(again.output).toMatch(/2 unchanged/); // the stack and the template: settled
  await s.ok("destroy", "--yes", "--skip-preview");
  expect(inventoryIDs(s.emulator)).toEqual({ templates: [], volumes: [], sandboxes: [] });
});
