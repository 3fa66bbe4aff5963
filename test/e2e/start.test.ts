/** `npm start`, the README's main job: deploy the quickstart on the embedded emulator, print, clean up. */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { ROOT } from "./harness";

const state = mkdtempSync(join(tmpdir(), "pulumi-sandbox-start-"));
afterAll(() => rmSync(state, { recursive: true, force: true }));

function npmStart(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, "scripts", "start.mjs"), "--once"], {
      cwd: ROOT,
      env: { ...process.env, SANDBOX_LOCAL_STATE: state, PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH}` },
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

test("npm start -- --once deploys the quickstart through the real CLI, prints the result and destroys it", async () => {
  const { code, output } = await npmStart();
  expect(code, output).toBe(0);
  for (const step of ["1/4 Pulumi CLI", "2/4 Starting the embedded emulator", "3/4 pulumi preview", "4/4 pulumi up"]) {
    expect(output).toContain(step);
  }
  expect(output).toMatch(/\+ 4 created/);
  expect(output).toMatch(/provisioned {6}true/);
  expect(output).toContain("exit 0 in");
  expect(output).toContain("provisioned by pulumi");
  expect(output).toContain("Destroying the stack and stopping the emulator");
}, 240_000);
