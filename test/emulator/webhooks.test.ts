/**
 * Lifecycle webhook deliveries (docs/service.md#lifecycle-events-and-webhooks): a receiver on
 * loopback gets, for a sandbox made, paused, resumed and killed through the sdk, one signed POST
 * per subscribed event and nothing else; a failed attempt is retried on the (shortened) schedule;
 * a URL that never answers is recorded as failed after the last retry; timeouts, auto-resume and
 * snapshots report their events too. The signature is checked with the sdk's verifier, which is
 * written apart from the emulator's signer.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { WebhookDelivery } from "../../emulator";
import { PlatformClient, verifyWebhookSignature, type LifecycleEventType } from "../../sdk";
import { get } from "./ports-helpers";
import { startEmulator, waitFor } from "./platform-helpers";
import { startReceiver, type Receiver } from "./webhook-receiver";
import type { Emulator } from "../../emulator";

const SECRET = "whsec-test-0b1c";
const RETRIES = [40, 40, 40];
let emu: Emulator;
let sdk: PlatformClient;
const receivers: Receiver[] = [];

beforeAll(async () => {
  emu = await startEmulator({ webhookRetryDelaysMs: RETRIES, webhookTimeoutMs: 300 });
  sdk = new PlatformClient({ apiUrl: emu.apiUrl, apiKey: emu.apiKey }, {});
});
afterAll(async () => {
  await sdk?.close();
  await emu?.close();
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(answer?: (n: number) => number | "hang"): Promise<Receiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

async function hook(url: string, events: LifecycleEventType[], extra: { enabled?: boolean } = {}) {
  return sdk.webhooks.create({ name: "test hook", url, events, signatureSecret: SECRET, ...extra });
}

/** The deliveries of one webhook once none is pending. */
function settled(webhookID: string, count: number): Promise<WebhookDelivery[]> {
  return waitFor(`${count} settled deliveries`, () => {
    const mine = emu.state.webhookDeliveries().filter((d) => d.webhookID === webhookID);
    return mine.length >= count && mine.every((d) => d.state !== "pending") ? mine : undefined;
  });
}

describe("deliveries", () => {
  test("create, pause, resume and kill each deliver one signed POST to a subscribed webhook, nothing else", async () => {
    const r = await receiver();
    const four: LifecycleEventType[] = ["sandbox.lifecycle.created", "sandbox.lifecycle.paused", "sandbox.lifecycle.resumed", "sandbox.lifecycle.killed"];
    const wh = await hook(r.url, four);
    const other = await receiver();
    await hook(other.url, ["sandbox.lifecycle.checkpointed"]);
    const off = await receiver();
    await hook(off.url, four, { enabled: false });
    const { sandboxID, templateID } = await sdk.sandboxes.create({ templateID: "base", metadata: { owner: "hooks" } });
    await sdk.sandboxes.pause(sandboxID);
    await sdk.sandboxes.connect(sandboxID, { timeout: 60 });
    await sdk.sandboxes.kill(sandboxID);
    await settled(wh.id, 4);
    expect(r.received.map((x) => JSON.parse(x.body).type)).toEqual(four);
    for (const x of r.received) {
      expect(x.headers["e2b-webhook-id"]).toBe(wh.id);
      expect(x.headers["e2b-signature-version"]).toBe("v1");
      expect(x.headers["e2b-delivery-id"]).toMatch(/^[0-9a-f-]{36}$/);
      expect(verifyWebhookSignature(SECRET, x.body, x.headers["e2b-signature"] as string)).toBe(true);
      expect(verifyWebhookSignature("another secret", x.body, x.headers["e2b-signature"] as string)).toBe(false);
    }
    const [created, paused, resumed, killed] = r.received.map((x) => JSON.parse(x.body));
    expect(created).toEqual({
      version: "v2", id: expect.any(String), type: "sandbox.lifecycle.created", eventData: { sandbox_metadata: { owner: "hooks" } },
      sandboxBuildId: expect.any(String), sandboxExecutionId: expect.any(String), sandboxId: sandboxID,
      sandboxTeamId: expect.any(String), sandboxTemplateId: templateID, timestamp: expect.stringMatching(/Z$/),
    });
    const execution = { started_at: expect.stringMatching(/Z$/), vcpu_count: 2, memory_mb: 512, execution_time: expect.any(Number) };
    expect(paused.eventData).toEqual({ sandbox_metadata: { owner: "hooks" }, execution });
    expect(killed.eventData).toEqual({ sandbox_metadata: { owner: "hooks" }, execution });
    // A resume starts a new execution, which the kill ends.
    expect(paused.sandboxExecutionId).toBe(created.sandboxExecutionId);
    expect(resumed.sandboxExecutionId).not.toBe(created.sandboxExecutionId);
    expect(killed.sandboxExecutionId).toBe(resumed.sandboxExecutionId);
    expect(new Set(r.received.map((x) => x.headers["e2b-delivery-id"])).size).toBe(4);
    expect(other.received).toEqual([]);
    expect(off.received).toEqual([]);
  });

  test("an attempt answered 500 is retried, with a new delivery ID, and the delivery ends delivered", async () => {
    const r = await receiver((n) => (n === 0 ? 500 : 204));
    const wh = await hook(r.url, ["sandbox.lifecycle.created"]);
    await sdk.sandboxes.create({ templateID: "base" });
    const [delivery] = await settled(wh.id, 1);
    expect(delivery!.state).toBe("delivered");
    expect(delivery!.attempts.map((a) => a.status)).toEqual([500, 204]);
    expect(r.received).toHaveLength(2);
    expect(r.received[1]!.body).toBe(r.received[0]!.body);
    expect(r.received[1]!.headers["e2b-delivery-id"]).not.toBe(r.received[0]!.headers["e2b-delivery-id"]);
  });

  test("a URL that never answers is tried once and retried 3 times, then recorded as failed; the API call did not wait", async () => {
    const r = await receiver(() => "hang");
    const wh = await hook(r.url, ["sandbox.lifecycle.created"]);
    const started = Date.now();
    await sdk.sandboxes.create({ templateID: "base" });
    expect(Date.now() - started).toBeLessThan(300);
    const [delivery] = await settled(wh.id, 1);
    expect(delivery!.state).toBe("failed");
    expect(delivery!.attempts).toHaveLength(1 + RETRIES.length);
    expect(delivery!.attempts.every((a) => a.status === undefined && a.error === "no answer within 300 ms")).toBe(true);
  });

  test("a timeout's pause (autoPause), a resume by traffic (autoResume), a timeout update and a snapshot report their events", async () => {
    const r = await receiver();
    const types: LifecycleEventType[] = ["sandbox.lifecycle.updated", "sandbox.lifecycle.paused", "sandbox.lifecycle.resumed", "sandbox.lifecycle.checkpointed"];
    const wh = await hook(r.url, types);
    const made = await sdk.sandboxes.create({ templateID: "base", timeout: 60, autoPause: true, autoResume: { enabled: true } });
    const { sandboxID } = made;
    const token: Record<string, string> = made.envdAccessToken ? { "x-access-token": made.envdAccessToken } : {};
    await sdk.sandboxes.setTimeout(sandboxID, 0);
    await waitFor("auto-paused", async () => ((await sdk.sandboxes.get(sandboxID)).state === "paused" ? true : undefined));
    expect((await get(`${emu.sandboxUrl}/health`, { "e2b-sandbox-id": sandboxID, "e2b-sandbox-port": "49983", ...token })).status).toBe(204);
    await sdk.sandboxes.setTimeout(sandboxID, 120);
    await sdk.snapshots.create(sandboxID, {});
    await settled(wh.id, 4);
    const events = r.received.map((x) => JSON.parse(x.body));
    expect(events.map((e) => e.type)).toEqual(["sandbox.lifecycle.paused", "sandbox.lifecycle.resumed", "sandbox.lifecycle.updated", "sandbox.lifecycle.checkpointed"]);
    expect(events[2].eventData.set_timeout).toMatch(/Z$/);
  });

  test("a timeout's kill reports killed", async () => {
    const r = await receiver();
    const wh = await hook(r.url, ["sandbox.lifecycle.killed"]);
    const { sandboxID } = await sdk.sandboxes.create({ templateID: "base", timeout: 60 });
    await sdk.sandboxes.setTimeout(sandboxID, 0);
    await settled(wh.id, 1);
    expect(JSON.parse(r.received[0]!.body)).toMatchObject({ type: "sandbox.lifecycle.killed", sandboxId: sandboxID });
  });
});
