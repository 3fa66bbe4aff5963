/**
 * Resources that end outside Pulumi, through the real engine on the any-resource fixture: a sandbox
 * that reached its timeout, a volume deleted by another client. The state still holds them until a
 * refresh, so an in-place change makes `up` update what is gone: it must fail saying so, naming the
 * resource and the way out (`pulumi refresh`, or `pulumi up --refresh`), and that way out must work:
 * `up --refresh` drops the gone resource and makes a new one.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { inventoryOfStack, startStack, type E2eStack } from "./harness";

const FIXTURE = join(__dirname, "fixtures", "any-resource");
const WAY_OUT = "run `pulumi refresh` to drop it from the state, or `pulumi up --refresh` to make a new one.";

async function until(what: string, done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The engine's output on one line: it wraps long error messages. */
const flat = (output: string) => output.replace(/\s+/g, " ");
/**
 * Whether the service's 404 shows through: as a status, not inside the resource's ID (a random UUID
 * such as `…-ba74044e0a47`, which the message names, holds "404" now and then).
 */
const shows404 = (output: string, id: unknown) => /\b404\b/.test(output.replaceAll(String(id), "<id>"));

describe("a sandbox that reached its timeout", () => {
  let s: E2eStack;

  beforeAll(async () => {
    s = await startStack(FIXTURE, "gone-sandbox");
    await s.ok("config", "set", "kind", "Sandbox");
  }, 120_000);

  afterAll(async () => {
    await s?.close();
  });

  test("an in-place change fails naming the sandbox and `pulumi refresh`; `up --refresh` makes a new one", async () => {
    // Long enough to outlast the create's own calls on a loaded machine, short enough to wait for.
    await s.ok("config", "set", "args", JSON.stringify({ templateID: "base", timeoutSeconds: 8 }));
    await s.ok("up", "--yes", "--skip-preview");
    const { id } = await s.outputs();
    await until("the sandbox to expire", () => inventoryOfStack(s.emulator).sandboxes.length === 0, 30_000);

    await s.ok("config", "set", "args", JSON.stringify({ templateID: "base", timeoutSeconds: 600 }));
    const up = await s.pulumi("up", "--yes", "--skip-preview");
    expect(up.code, up.output).not.toBe(0);
    expect(flat(up.output)).toContain(
      `Sandbox "subject" ${String(id)} no longer exists in the service (it reached its timeout, or was killed outside Pulumi): ${WAY_OUT}`,
    );
    expect(shows404(up.output, id)).toBe(false);

    const again = await s.ok("up", "--refresh", "--yes", "--skip-preview");
    expect(again.output).toMatch(/\+ 1 created/);
    const after = await s.outputs();
    expect(after.id).not.toBe(id);
    expect(inventoryOfStack(s.emulator).sandboxes.map((x) => x.sandboxID)).toEqual([after.id]);
    await s.ok("destroy", "--yes", "--skip-preview");
  });
});

describe("a volume deleted outside Pulumi", () => {
  let s: E2eStack;
  let seed: string;

  beforeAll(async () => {
    s = await startStack(FIXTURE, "gone-volume");
    seed = mkdtempSync(join(tmpdir(), "gone-seed-"));
    await s.ok("config", "set", "kind", "Volume");
  }, 120_000);

  afterAll(async () => {
    await s?.close();
    rmSync(seed, { recursive: true, force: true });
  });

  test("a new seed fails naming the volume and `pulumi refresh`; `up --refresh` makes and seeds a new one", async () => {
    writeFileSync(join(seed, "a.txt"), "alpha\n");
    await s.ok("config", "set", "args", JSON.stringify({ content: { path: seed } }));
    await s.ok("up", "--yes", "--skip-preview");
    const { id } = await s.outputs();
    const res = await fetch(`${s.emulator.apiUrl}/volumes/${String(id)}`, { method: "DELETE", headers: { "X-API-Key": s.emulator.apiKey } });
    expect(res.status).toBe(204);

    writeFileSync(join(seed, "a.txt"), "alpha, edited\n");
    const up = await s.pulumi("up", "--yes", "--skip-preview");
    expect(up.code, up.output).not.toBe(0);
    expect(flat(up.output)).toContain(`Volume "subject" ${String(id)} no longer exists in the service (it was deleted outside Pulumi): ${WAY_OUT}`);
    expect(shows404(up.output, id)).toBe(false);

    const again = await s.ok("up", "--refresh", "--yes", "--skip-preview");
    expect(again.output).toMatch(/\+ 1 created/);
    const after = await s.outputs();
    expect(after.id).not.toBe(id);
    const volumes = inventoryOfStack(s.emulator).volumes;
    expect(volumes.map((v) => v.volumeID)).toEqual([after.id]);
    expect(readFileSync(join(volumes[0]!.hostDir, "a.txt"), "utf8")).toBe("alpha, edited\n");
    await s.ok("destroy", "--yes", "--skip-preview");
  });
});
