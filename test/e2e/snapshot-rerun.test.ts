/**
 * A Snapshot's create killed right after its snapshot call, through the real engine: `pulumi up` is
 * SIGKILLed (its process group, as a CI runner kills a job) at the moment the service has taken the
 * snapshot and before its answer leaves, so no state records it. The service never expires a snapshot:
 * the next `up` must find it (by the name the create gave it: provider/kinds/snapshot/auto-name.ts) and
 * adopt it, not take a second one, and `destroy` must leave none. The provider-level cases (a lost
 * answer, other inputs, old state) are test/provider/snapshot-rerun.test.ts.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ROOT, startStack, type E2eStack } from "./harness";
import { backendDir, endPluginsOf, killableUp, until } from "./kill";

const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "any-resource");

describe("a Snapshot's up killed after the snapshot call", () => {
  let s: E2eStack;
  let stateDir = "";
  /** Sees each request line as the emulator logs it: after the request is handled, before its answer is sent. */
  let onRequest: ((line: string) => void) | undefined;

  beforeAll(async () => {
    s = await startStack(FIXTURE, "e2e-snapshot-rerun", { log: (line) => onRequest?.(line) });
    await s.ok("config", "set", "kind", "Snapshot");
    stateDir = await backendDir(s);
  }, 120_000);

  afterAll(async () => {
    endPluginsOf(stateDir);
    await s?.close();
  });

  async function api(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${s.emulator.apiUrl}${path}`, {
      method,
      headers: { "X-API-Key": s.emulator.apiKey, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.ok, `${method} ${path}: ${res.status}`).toBe(true);
    return res.json();
  }

  /** The snapshot IDs the service lists. */
  const listed = async () => ((await api("GET", "/snapshots")) as { snapshotID: string }[]).map((x) => x.snapshotID);
  /** Builds of snapshots the emulator keeps the files of. */
  const builds = () => readdirSync(join(s.emulator.dataDir, "sandbox-snapshots")).length;

  test("the next up adopts the snapshot the killed run took, and destroy leaves none", async () => {
    const { sandboxID } = (await api("POST", "/sandboxes", { templateID: "base", timeout: 600 })) as { sandboxID: string };
    await s.ok("config", "set", "args", JSON.stringify({ sandboxID }));

    const run = await killableUp(s, FIXTURE, stateDir);
    let killed: Promise<void> | undefined;
    onRequest = (line) => {
      if (killed === undefined && line.startsWith(`POST /sandboxes/${sandboxID}/snapshots `)) killed = run.kill();
    };
    await until("the snapshot call", () => killed !== undefined);
    await killed;
    onRequest = undefined;
    const taken = await listed();
    expect(taken, run.output()).toHaveLength(1);
    expect(run.output()).not.toContain("created");

    await s.ok("cancel", "--yes"); // the killed run left the stack locked
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toContain(`adopting snapshot ${taken[0]}, taken of sandbox ${sandboxID} by an interrupted run of this resource`);
    expect(up.output).toMatch(/\+ 1 created/);
    expect(await listed()).toEqual(taken);
    expect(builds()).toBe(1);
    expect(s.emulator.calls().filter((c) => c.method === "POST" && c.path === `/sandboxes/${sandboxID}/snapshots`)).toHaveLength(1);
    expect((await s.outputs()).id).toBe(taken[0]);

    // Pulumi 3.259 keeps the killed run's pending create until a refresh clears it.
    await s.ok("refresh", "--clear-pending-creates", "--yes", "--skip-preview");
    await s.ok("destroy", "--yes", "--skip-preview");
    expect(await listed()).toEqual([]);
    expect(builds()).toBe(0);
    endPluginsOf(stateDir);
  }, 120_000);
});
