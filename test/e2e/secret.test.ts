/**
 * Secret through the real engine: a program that writes the value in plain text goes up; a second
 * preview has no changes; a new value previews as an update and `up` writes one new version of the
 * same secret; the value is `[secret]` in previews and outputs, and neither value is anywhere in the
 * CLI output or the exported state (the scan on close looks in the backend's files too); `destroy`
 * deletes the secret. The tests share one stack, in order.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { callsSince, lastSeq, ROOT, startStack, type E2eStack } from "./harness";

const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "secret");
/** The values the fixture writes, by `round`. */
const valueOf = (round: number) => `plain-in-program-${round}-7d0c`;

interface Step { urn: string; op: string }

describe("a Secret whose value the program gives in plain text", () => {
  let s: E2eStack;

  /** The secret's metadata as the service answers it, and the status. */
  async function served(id: string): Promise<{ status: number; text: string }> {
    const res = await fetch(`${s.emulator.apiUrl}/secrets/${id}`, { headers: { "X-API-Key": s.emulator.apiKey } });
    return { status: res.status, text: await res.text() };
  }

  /** What `preview` would do to each resource, by name (the stack left out). */
  async function plan(): Promise<Record<string, string>> {
    const res = await s.pulumi("preview", "--json");
    expect(res.code, res.output).toBe(0);
    const steps = (JSON.parse(res.stdout) as { steps?: Step[] }).steps ?? [];
    return Object.fromEntries(steps.filter((x) => !x.urn.includes("pulumi:pulumi:Stack")).map((x) => [x.urn.slice(x.urn.lastIndexOf("::") + 2), x.op]));
  }

  beforeAll(async () => {
    s = await startStack(FIXTURE, "e2e-secret");
    s.secret(valueOf(1), "the first value");
    s.secret(valueOf(2), "the second value");
  }, 300_000);

  afterAll(async () => {
    await s?.close();
  });

  test("up makes it; its value is [secret] among the outputs and in no answer of the service", async () => {
    await s.ok("up", "--yes", "--skip-preview");
    const out = await s.outputs();
    expect(out).toMatchObject({ secretID: expect.stringMatching(/^sec_[0-9a-z]{26}$/), name: expect.stringMatching(/^token-[0-9a-f]{8}$/), currentVersion: 1, value: "[secret]" });
    expect((await s.outputs({ showSecrets: true })).value).toBe(valueOf(1));
    const answer = await served(String(out.secretID));
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain(valueOf(1));
  });

  test("a second preview has no changes, and calls nothing that writes", async () => {
    const since = lastSeq(s.emulator);
    await s.ok("preview", "--expect-no-changes");
    expect(callsSince(s.emulator, since).filter((c) => !c.startsWith("GET"))).toEqual([]);
  });

  test("a new value previews as an update shown as [secret]; up writes one version of the same secret", async () => {
    const before = await s.outputs();
    await s.ok("config", "set", "round", "2");
    expect(await plan()).toEqual({ token: "update" });
    const diff = await s.ok("preview", "--diff");
    expect(diff.output).toMatch(/~ pulumi-nodejs:dynamic\/sandbox:Secret: \(update\)[^]*value\s*: \[secret\]\n/);
    const since = lastSeq(s.emulator);
    await s.ok("up", "--yes", "--skip-preview");
    expect(callsSince(s.emulator, since).filter((c) => !c.startsWith("GET"))).toEqual([`POST /secrets/${String(before.secretID)}`]);
    const after = await s.outputs();
    expect(after).toMatchObject({ secretID: before.secretID, name: before.name, currentVersion: 2, value: "[secret]" });
    expect((await s.outputs({ showSecrets: true })).value).toBe(valueOf(2));
  });

  test("the exported state holds neither value in plain text, nor does the CLI output", async () => {
    const exported = await s.exported();
    for (const round of [1, 2]) {
      expect(exported).not.toContain(valueOf(round));
      expect(s.transcript()).not.toContain(valueOf(round));
    }
    // Both are there, encrypted: the state needs the value to diff the next one.
    expect(await s.exported({ showSecrets: true })).toContain(valueOf(2));
  });

  test("destroy deletes the secret", async () => {
    const { secretID } = await s.outputs();
    await s.ok("destroy", "--yes");
    expect((await served(String(secretID))).status).toBe(404);
    const listed = await fetch(`${s.emulator.apiUrl}/secrets`, { headers: { "X-API-Key": s.emulator.apiKey } });
    expect(await listed.json()).toEqual([]);
  });
});
