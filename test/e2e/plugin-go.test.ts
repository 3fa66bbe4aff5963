/**
 * examples/go-sandbox through the real engine: a Go program, the Go SDK generated from schema.json
 * (sdks/go, a module the example `replace`s in) and the native plugin. The Go host is the one
 * scripts/build-pulumi-cli.sh builds; it compiles the program with the `go` on PATH (the first `up`
 * pays for compiling github.com/pulumi/pulumi/sdk/v3, unless the CLI build left it in Go's cache).
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { callsSince, inventoryOfStack, lastSeq, startStack, type E2eStack } from "./harness";

let s: E2eStack;

beforeAll(async () => {
  s = await startStack("go-sandbox", "e2e-go-sandbox");
}, 300_000);

afterAll(async () => {
  await s?.close();
});

test("up makes a sandbox and runs its provisioning commands, from Go", async () => {
  const up = await s.ok("up", "--yes", "--skip-preview");
  expect(up.output).toMatch(/\+ 2 created/); // the stack and the sandbox
  const out = await s.outputs();
  const inv = inventoryOfStack(s.emulator);
  expect(inv.sandboxes.map((x) => [x.sandboxID, x.metadata.team])).toEqual([[out.sandboxID, "platform"]]);
  expect(out.provisioned).toBe(true);
  expect(up.output).toContain("[Sandbox dev] provision 2/2: exit code 0");
});

test("a second up changes nothing and sends the service nothing", async () => {
  const since = lastSeq(s.emulator);
  const up = await s.ok("up", "--yes", "--skip-preview");
  expect(up.output).toMatch(/2 unchanged/);
  expect(callsSince(s.emulator, since)).toEqual([]);
});

test("destroy removes the sandbox", async () => {
  await s.ok("destroy", "--yes", "--skip-preview");
  expect(inventoryOfStack(s.emulator)).toEqual({ sandboxes: [], volumes: [], templates: [] });
});
