/**
 * Snapshot through the real engine: a provisioned sandbox, a Snapshot of it and a sandbox started
 * from the snapshot's ID (which finds the first one's file) go up; a second preview has no changes;
 * a change of `triggers` previews as a replacement, and after `up` the old snapshot is gone from
 * `GET /snapshots`, made after the new one; `destroy` leaves no snapshot. The tests share one stack, in order.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { callsSince, lastSeq, ROOT, startStack, type E2eStack } from "./harness";

const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "snapshot");

interface Step { urn: string; op: string }

describe("a Snapshot of a sandbox, and a sandbox from it", () => {
  let s: E2eStack;

  /** The snapshot IDs the service lists, newest first. */
  async function listed(): Promise<string[]> {
    const res = await fetch(`${s.emulator.apiUrl}/snapshots`, { headers: { "X-API-Key": s.emulator.apiKey } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { snapshotID: string }[]).map((x) => x.snapshotID);
  }

  /** What `preview` would do to each resource, by name (the stack left out). */
  async function plan(): Promise<Record<string, string>> {
    const res = await s.pulumi("preview", "--json");
    expect(res.code, res.output).toBe(0);
    const steps = (JSON.parse(res.stdout) as { steps?: Step[] }).steps ?? [];
    return Object.fromEntries(steps.filter((x) => !x.urn.includes("pulumi:pulumi:Stack")).map((x) => [x.urn.slice(x.urn.lastIndexOf("::") + 2), x.op]));
  }

  beforeAll(async () => {
    s = await startStack(FIXTURE, "e2e-snapshot");
  }, 300_000);

  afterAll(async () => {
    await s?.close();
  });

  test("up: the sandbox from the snapshot reads the file its origin wrote", async () => {
    await s.ok("up", "--yes", "--skip-preview");
    const out = await s.outputs();
    expect(out.snapshotID).toMatch(/^[a-z0-9]{20}:default$/);
    expect(out.childTemplateID).toBe(out.snapshotID);
    // Provisioning results are secret outputs (they may quote secrets); the file's text is none.
    expect((await s.outputs({ showSecrets: true })).childRead).toBe("made-before-the-snapshot\n");
    expect(await listed()).toEqual([out.snapshotID]);
  });

  test("a second preview has no changes, and calls nothing that writes", async () => {
    const since = lastSeq(s.emulator);
    await s.ok("preview", "--expect-no-changes");
    expect(callsSince(s.emulator, since).filter((c) => !c.startsWith("GET"))).toEqual([]);
  });

  test("a change of triggers replaces the snapshot (and the sandbox from it); the old one is deleted after the new one exists", async () => {
    const before = await s.outputs();
    await s.ok("config", "set", "round", "2");
    expect(await plan()).toEqual({ snap: "replace", child: "replace" });
    const since = lastSeq(s.emulator);
    await s.ok("up", "--yes", "--skip-preview");
    const after = await s.outputs();
    expect(after.snapshotID).not.toBe(before.snapshotID);
    expect(after.originID).toBe(before.originID);
    expect((await s.outputs({ showSecrets: true })).childRead).toBe("made-before-the-snapshot\n");
    expect(await listed()).toEqual([after.snapshotID]);
    // Paths as sent: the sdk encodes the `:` of a snapshot's ID.
    const writes = callsSince(s.emulator, since).filter((c) => !c.startsWith("GET")).map(decodeURIComponent);
    const taken = writes.indexOf(`POST /sandboxes/${String(before.originID)}/snapshots`);
    const deleted = writes.indexOf(`DELETE /templates/${String(before.snapshotID)}`);
    expect(taken).toBeGreaterThanOrEqual(0);
    expect(deleted).toBeGreaterThan(taken);
    // The old sandbox from the old snapshot goes first: the service refuses to delete a snapshot in use.
    expect(writes.indexOf(`DELETE /sandboxes/${String(before.childID)}`)).toBeLessThan(deleted);
  });

  test("destroy leaves no snapshot", async () => {
    await s.ok("destroy", "--yes");
    expect(await listed()).toEqual([]);
    expect(s.emulator.state.sandboxes().filter((x) => x.state === "running")).toEqual([]);
  });
});
