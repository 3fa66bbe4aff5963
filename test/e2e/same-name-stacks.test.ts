/**
 * Two people of one team, each with a `dev` stack of the same project in a checkout of their own, each
 * on a `file://` backend of their own, against one service (one API key): the URNs of their resources
 * are the same. Each `up` must make its own template, volumes and sandbox (no adoption of the other's),
 * under names of its own, and one `destroy` must leave the other's resources as they are. Tests share
 * the two stacks and run in order.
 */
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { STACK_KEY } from "../../provider/kinds/sandbox/adoption";
import { inventoryOfStack, ROOT, startStack, type E2eStack } from "./harness";

const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "state-safety");
/** The two checkouts (gitignored; made and removed here): the same program, the same project name. */
const CHECKOUTS = ["ana", "ben"].map((who) => join(ROOT, "test", "e2e", "fixtures", `same-name-${who}.tmp`));

let emulator: Emulator;
let ana: E2eStack;
let ben: E2eStack;

beforeAll(async () => {
  emulator = await createEmulator({ buildDelayMs: 300 });
  for (const dir of CHECKOUTS) {
    rmSync(dir, { recursive: true, force: true });
    cpSync(FIXTURE, dir, { recursive: true, filter: (src) => !/Pulumi\.[^/]+\.yaml$/.test(src) });
  }
  ana = await startStack(CHECKOUTS[0]!, "dev", {}, { emulator });
  ben = await startStack(CHECKOUTS[1]!, "dev", {}, { emulator });
}, 300_000);

afterAll(async () => {
  await ana?.close();
  await ben?.close();
  await emulator?.close();
  for (const dir of CHECKOUTS) rmSync(dir, { recursive: true, force: true });
}, 300_000);

interface Made {
  templates: string[];
  volumes: string[];
  sandboxes: string[];
}

/** What a stack's state holds of the service, by ID, with the names the service knows them by. */
async function madeBy(s: E2eStack): Promise<Made & { names: string[] }> {
  const state = JSON.parse(await s.exported()) as { deployment: { resources: { type: string; id?: string; outputs?: Record<string, unknown> }[] } };
  const of = (kind: string) => state.deployment.resources.filter((r) => r.type === `pulumi-nodejs:dynamic/sandbox:${kind}`);
  const ids = (kind: string) => of(kind).map((r) => r.id!).sort();
  const names = [...of("Template").map((r) => r.outputs!.alias), ...of("Volume").map((r) => r.outputs!.name)] as string[];
  return { templates: ids("Template"), volumes: ids("Volume"), sandboxes: ids("Sandbox"), names: names.sort() };
}

function held(): Made {
  const inv = inventoryOfStack(emulator);
  return {
    templates: inv.templates.map((t) => t.templateID).sort(),
    volumes: inv.volumes.map((v) => v.volumeID).sort(),
    sandboxes: inv.sandboxes.map((x) => x.sandboxID).sort(),
  };
}

const union = (a: Made, b: Made): Made => ({
  templates: [...a.templates, ...b.templates].sort(),
  volumes: [...a.volumes, ...b.volumes].sort(),
  sandboxes: [...a.sandboxes, ...b.sandboxes].sort(),
});

describe("two stacks of one name and project, on two backends, one team", () => {
  test("each up makes its own template, volumes and sandbox, under names of its own", async () => {
    await ana.ok("up", "--yes", "--skip-preview");
    const up = await ben.ok("up", "--yes", "--skip-preview");
    expect(up.output).not.toContain("adopting");
    const [a, b] = [await madeBy(ana), await madeBy(ben)];
    expect([a.templates.length, a.volumes.length, a.sandboxes.length]).toEqual([1, 3, 1]);
    expect([b.templates.length, b.volumes.length, b.sandboxes.length]).toEqual([1, 3, 1]);
    expect(held()).toEqual(union(a, b));
    for (const name of a.names) expect(b.names).not.toContain(name);
    // Each stack's sandbox list (adoption) is its own: the two sandboxes are marked with different stacks.
    const stacks = emulator.state.sandboxes().map((x) => x.metadata[STACK_KEY]);
    expect(new Set(stacks).size).toBe(2);
  });

  test("a second up of each changes nothing", async () => {
    for (const s of [ana, ben]) {
      const preview = await s.pulumi("preview", "--expect-no-changes");
      expect(preview.code, preview.output).toBe(0);
    }
  });

  test("destroying one stack leaves the other's resources intact", async () => {
    const a = await madeBy(ana);
    await ben.ok("destroy", "--yes", "--skip-preview");
    expect(held()).toEqual({ templates: a.templates, volumes: a.volumes, sandboxes: a.sandboxes });
    const refresh = await ana.ok("refresh", "--yes", "--skip-preview");
    expect(refresh.output).not.toMatch(/deleted/);
    const preview = await ana.pulumi("preview", "--expect-no-changes");
    expect(preview.code, preview.output).toBe(0);
  });
});
