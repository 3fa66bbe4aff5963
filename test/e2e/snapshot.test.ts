/**
 * Snapshot through the real engine (#26's "Done when", TypeScript): a provisioned sandbox, a Snapshot of
 * it, two sandboxes started from the snapshot's ID and a fork of the first (each finds the first one's
 * file), a Secret that one child's egress rules refer to by name, and lookups of the stack's sandboxes
 * and the team's secret names go up; a second preview has no changes; a new port is an update in place
 * with no write; a change of `triggers` previews as a replacement, and after `up` the old snapshot is
 * gone from `GET /snapshots`, made after the new one; `destroy` leaves no sandbox, snapshot or secret.
 * The tests share one stack, in order.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { callsSince, lastSeq, ROOT, startStack, type E2eStack } from "./harness";

const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "snapshot");
const TOKEN = "e2e-api-token-5b1f9c";

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
    s.secret(TOKEN, "the Secret's value");
    await s.ok("config", "set", "--secret", "apiToken", TOKEN);
  }, 300_000);

  /** What the emulator lists of a kind (GET on its route). */
  async function served(route: string): Promise<unknown[]> {
    const res = await fetch(`${s.emulator.apiUrl}${route}`, { headers: { "X-API-Key": s.emulator.apiKey } });
    expect(res.status).toBe(200);
    return (await res.json()) as unknown[];
  }

  afterAll(async () => {
    await s?.close();
  });

  test("up: the sandboxes from the snapshot and the fork read the file their origin wrote; the lookups list them and the secret", async () => {
    await s.ok("up", "--yes", "--skip-preview");
    const out = await s.outputs();
    // Unnamed in the program, it is named by its create (provider/kinds/snapshot/auto-name.ts).
    expect(out.snapshotID).toMatch(/^[a-z0-9-]+\/snap-[0-9a-f]{8}-[0-9a-f]{8}:default$/);
    expect(out.childTemplateID).toBe(out.snapshotID);
    // Provisioning results are secret outputs (they may quote secrets); the file's text is none.
    const shown = await s.outputs({ showSecrets: true });
    expect(shown.childRead).toBe("made-before-the-snapshot\n");
    expect(shown.twinRead).toBe("made-before-the-snapshot\n");
    expect(await listed()).toEqual([out.snapshotID]);
    const ids = [out.originID, out.childID, out.child2ID, out.twinID];
    expect(new Set(ids).size).toBe(4);
    expect(out.listedSandboxIDs).toEqual([...ids].sort());
    expect(out.secretNames).toEqual([out.tokenName]);
    // The twin is a fork of the origin, made by the fork call; child2's rule names the secret, never its value.
    expect(s.emulator.calls().some((c) => c.method === "POST" && c.path === `/sandboxes/${String(out.originID)}/fork`)).toBe(true);
    const child2 = s.emulator.state.sandboxes().find((x) => x.sandboxID === out.child2ID)!;
    expect((child2.network as { rules?: unknown } | undefined)?.rules).toEqual({
      "api.example.com": [{ transform: { headers: { Authorization: `Bearer \${e2b.secrets.${String(out.tokenName)}}` } } }],
    });
  });

  test("a second preview has no changes, and calls nothing that writes", async () => {
    const since = lastSeq(s.emulator);
    await s.ok("preview", "--expect-no-changes");
    expect(callsSince(s.emulator, since).filter((c) => !c.startsWith("GET"))).toEqual([]);
  });

  test("a new port is an update in place of child2 and the fork, with no write to the service", async () => {
    const before = await s.outputs();
    await s.ok("config", "set", "port", "9090");
    expect(await plan()).toEqual({ child2: "update", twin: "update" });
    const since = lastSeq(s.emulator);
    await s.ok("up", "--yes", "--skip-preview");
    expect(callsSince(s.emulator, since).filter((c) => !c.startsWith("GET"))).toEqual([]);
    const after = await s.outputs();
    expect([after.child2ID, after.twinID]).toEqual([before.child2ID, before.twinID]);
    expect(Object.keys(after.child2Urls as object).sort()).toEqual(["8080", "9090"]);
    await s.ok("preview", "--expect-no-changes");
  });

  test("a change of triggers replaces the snapshot (and the sandboxes from it); the old one is deleted after the new one exists", async () => {
    const before = await s.outputs();
    await s.ok("config", "set", "round", "2");
    expect(await plan()).toEqual({ snap: "replace", child: "replace", child2: "replace" });
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

  test("destroy leaves no sandbox, snapshot or secret", async () => {
    await s.ok("destroy", "--yes");
    expect(await listed()).toEqual([]);
    expect(s.emulator.state.sandboxes()).toEqual([]);
    expect(await served("/secrets")).toEqual([]);
  });
});
