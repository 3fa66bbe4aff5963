/**
 * LifecycleWebhook through the real engine, one stack in order: a program with a webhook and a
 * Sandbox that depends on it, the webhook's URL a receiver this test runs on loopback. The receiver
 * gets a correctly signed `created` for the sandbox (its first attempt answered 500, so the retry comes),
 * then `paused` from a later `up` (with a new secret and event list: one PATCH, previewed as an update)
 * and `killed` from `destroy`. A webhook made outside Pulumi is imported through the plugin and
 * previews no change; its `enabled: false` previews and applies as one PATCH. No secret is in state
 * in plain text after any step (`scanState`), nor anywhere on close.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { PlatformClient } from "../../sdk/platform/client";
import { verifyWebhookSignature, WEBHOOK_HEADERS, webhookSignature } from "../../sdk/platform/webhook-signature";
import { startReceiver, type Receiver } from "../emulator/webhook-receiver";
import { callsSince, lastSeq, ROOT, startStack, type E2eStack } from "./harness";
import { until } from "./kill";

const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "lifecycle-webhook");
/** The webhook's secret the fixture writes, by `round`. */
const secretOf = (round: number) => `hook-secret-${round}-5b1e`;
const OUTSIDE_SECRET = "outside-secret-made-by-hand-41c9";
const PROGRAM_SECRET_FOR_OUTSIDE = "program-secret-for-outside-3a7f";

interface Event { id: string; type: string; sandboxId: string }
interface Delivery { event: Event; webhookID: string; deliveryID: string; signed: (secret: string) => boolean }

describe("a LifecycleWebhook and the Sandbox it reports on", () => {
  let s: E2eStack;
  let receiver: Receiver;
  let sandboxID = "";
  let webhookID = "";
  let outsideID = "";
  const client = () => new PlatformClient({ apiUrl: s.emulator.apiUrl, apiKey: s.emulator.apiKey });
  const OUTSIDE_URL = () => `${receiver.url}/outside`;

  /** What the receiver got, oldest first. */
  const deliveries = (): Delivery[] => receiver.received.map((r) => ({
    event: JSON.parse(r.body) as Event,
    webhookID: String(r.headers[WEBHOOK_HEADERS.webhookID]),
    deliveryID: String(r.headers[WEBHOOK_HEADERS.deliveryID]),
    signed: (secret) => r.headers[WEBHOOK_HEADERS.signatureVersion] === "v1" && verifyWebhookSignature(secret, r.body, r.headers[WEBHOOK_HEADERS.signature] as string),
  }));
  const ofType = (type: string) => deliveries().filter((d) => d.event.type === `sandbox.lifecycle.${type}` && d.event.sandboxId === sandboxID);

  /** What `preview` would do, by resource name (the stack left out). */
  async function plan(): Promise<Record<string, string>> {
    const steps = (JSON.parse((await s.ok("preview", "--json")).stdout) as { steps?: { urn: string; op: string }[] }).steps ?? [];
    return Object.fromEntries(steps.filter((x) => !x.urn.includes("pulumi:pulumi:Stack")).map((x) => [x.urn.split("::").at(-1), x.op]));
  }
  /** The calls since `seq` that write (GETs left out). */
  const writes = (seq: number) => callsSince(s.emulator, seq).filter((c) => !c.startsWith("GET ") && !c.startsWith("POST /filesystem."));

  beforeAll(async () => {
    receiver = await startReceiver((n) => (n === 0 ? 500 : 200));
    s = await startStack(FIXTURE, "e2e-lifecycle-webhook", { webhookRetryDelaysMs: [50, 50, 50] });
    for (const round of [1, 2]) s.secret(secretOf(round), `the webhook's secret of round ${round}`);
    s.secret(OUTSIDE_SECRET, "the imported webhook's secret, set outside Pulumi");
    s.secret(PROGRAM_SECRET_FOR_OUTSIDE, "the imported webhook's secret in the program");
    await s.configure({ url: receiver.url });
  }, 300_000);

  afterAll(async () => {
    await s?.close();
    await receiver?.close();
  });

  test("up registers the webhook before the sandbox: a signed `created` arrives, and its failed first attempt is retried", async () => {
    const since = lastSeq(s.emulator);
    await s.ok("up", "--yes", "--skip-preview");
    expect(writes(since)).toEqual(["POST /events/webhooks", "POST /v2/sandboxes"]);
    const out = await s.outputs();
    expect(out).toMatchObject({ webhookName: expect.stringMatching(/^hook-[0-9a-f]{8}$/), signatureSecret: "[secret]" });
    ({ webhookID, sandboxID } = out as { webhookID: string; sandboxID: string });
    await until("the retry of created", () => ofType("created").length === 2, 10_000);
    const [first, retry] = ofType("created");
    // The same event, signed with the program's secret, under two delivery IDs.
    expect(retry!.event).toEqual(first!.event);
    expect(retry!.deliveryID).not.toBe(first!.deliveryID);
    for (const d of [first!, retry!]) expect([d.webhookID, d.signed(secretOf(1)), d.signed(secretOf(2))]).toEqual([webhookID, true, false]);
    expect(s.emulator.state.webhookDeliveries().find((d) => d.eventID === first!.event.id)).toMatchObject({ state: "delivered", attempts: [{}, {}] });
    await s.scanState("the first up");
  });

  test("pulumi import of a webhook made outside Pulumi records no secret; declared as it was made, nothing changes", async () => {
    const made = await client().webhooks.create({ name: "outside-hook", url: OUTSIDE_URL(), events: ["sandbox.lifecycle.killed"], signatureSecret: OUTSIDE_SECRET });
    outsideID = made.id;
    const imported = await s.ok("import", "sandbox:index:LifecycleWebhook", "outside-hook", made.id, "--yes", "--protect=false", "--generate-code=false");
    expect(imported.output).toMatch(/= 1 imported/);
    // The engine checks the imported inputs: the secret, which the service never answers, is missing until the program declares it.
    expect(imported.output).toContain("sandbox:index:LifecycleWebhook resource 'outside-hook' has a problem: signatureSecret: is required");
    const resources = (JSON.parse(await s.exported()) as { deployment: { resources: { urn: string; inputs?: object; outputs?: object }[] } }).deployment.resources;
    const record = resources.find((r) => r.urn.endsWith("::outside-hook"));
    const asMade = { name: "outside-hook", url: OUTSIDE_URL(), enabled: true, events: ["sandbox.lifecycle.killed"] };
    expect(record?.inputs).toEqual(asMade);
    expect(record?.outputs).toEqual({ __version: expect.any(String), ...asMade, webhookID: made.id });
    await s.configure({ adoptWebhook: OUTSIDE_URL() });
    const preview = await s.pulumi("preview", "--expect-no-changes", "--diff");
    expect(preview.code, preview.output).toBe(0);
    await s.scanState("the import");
  });

  test("a new secret, event list or `enabled` previews as an update, no replace; up PATCHes each webhook once, and `paused` comes signed with the new secret", async () => {
    await s.configure({ round: "2", events: JSON.stringify(["sandbox.lifecycle.paused", "sandbox.lifecycle.killed"]), paused: "true", adoptEnabled: "false" });
    expect(await plan()).toEqual({ hook: "update", box: "update", "outside-hook": "update" });
    const since = lastSeq(s.emulator);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/~ 3 updated/);
    expect(up.output).not.toMatch(/replaced|created/);
    expect(writes(since).sort()).toEqual([`PATCH /events/webhooks/${outsideID}`, `PATCH /events/webhooks/${webhookID}`, `POST /sandboxes/${sandboxID}/pause`].sort());
    // The sandbox depends on the webhook: its pause comes after the PATCH, so it is signed with the new secret.
    await until("paused", () => ofType("paused").length === 1, 10_000);
    expect(ofType("paused")[0]!.signed(secretOf(2))).toBe(true);
    expect((await s.outputs()).webhookID).toBe(webhookID);
    expect(await client().webhooks.get(webhookID)).toMatchObject({ enabled: true, events: ["sandbox.lifecycle.paused", "sandbox.lifecycle.killed"] });
    expect(await client().webhooks.get(outsideID)).toMatchObject({ enabled: false, name: "outside-hook" });
    await s.scanState("the PATCHes of the secret, the events and enabled");
  });

  test("destroy kills the sandbox, then unregisters the webhooks: `killed` arrives signed, and no webhook is left", async () => {
    await s.ok("destroy", "--yes", "--skip-preview");
    await until("killed", () => ofType("killed").length === 1, 10_000);
    expect(ofType("killed")[0]!.signed(secretOf(2))).toBe(true);
    // Disabled, the imported webhook got nothing; the stack's got its sandbox's three events and nothing else.
    expect(receiver.received.filter((r) => r.path.endsWith("/outside"))).toEqual([]);
    expect(ofType("created").length + ofType("paused").length + ofType("killed").length).toBe(receiver.received.length);
    expect(await client().webhooks.list()).toEqual([]);
    await s.scanState("destroy");
  });
});

/**
 * The example's receiver (examples/lifecycle-webhook/receiver.js), as a user runs it, against the
 * emulator's real deliveries: it verifies each signature with the docs' algorithm written out, logs the
 * events of the sandboxes tagged as the example's program tags them, skips others, and refuses a
 * forged delivery. No engine: the example's program is the fixture's above with a tag.
 */
describe("examples/lifecycle-webhook/receiver.js", () => {
  const SECRET = "example-receiver-secret-6d0e";
  let emu: Emulator;
  let child: ChildProcess;
  let printed = "";

  beforeAll(async () => {
    emu = await createEmulator({ webhookRetryDelaysMs: [50] });
    child = spawn(process.execPath, [join(ROOT, "examples", "lifecycle-webhook", "receiver.js"), "0"], { env: { ...process.env, WEBHOOK_SECRET: SECRET } });
    child.stdout!.on("data", (chunk: Buffer) => (printed += chunk.toString("utf8")));
    await until("the receiver to listen", () => /listening on (\S+)/.test(printed), 10_000);
  });

  afterAll(async () => {
    child?.kill();
    await emu?.close();
  });

  test("logs the verified events of the example's sandboxes, once each, and refuses a forged delivery", async () => {
    const url = /listening on (\S+)/.exec(printed)![1]!;
    const client = new PlatformClient({ apiUrl: emu.apiUrl, apiKey: emu.apiKey });
    const hook = await client.webhooks.create({ name: "example", url, events: ["sandbox.lifecycle.created", "sandbox.lifecycle.killed"], signatureSecret: SECRET });
    const ours = await client.sandboxes.create({ templateID: "base", metadata: { app: "lifecycle-webhook-demo" } });
    const other = await client.sandboxes.create({ templateID: "base", metadata: { app: "another" } });
    await client.sandboxes.kill(ours.sandboxID);
    await until("three deliveries", () => emu.state.webhookDeliveries().filter((d) => d.state === "delivered").length === 3, 10_000);
    const lines = printed.split("\n").filter((l) => l.startsWith("verified "));
    expect(lines.map((l) => l.split(" at ")[0])).toEqual([`verified sandbox.lifecycle.created of sandbox ${ours.sandboxID}`, `verified sandbox.lifecycle.killed of sandbox ${ours.sandboxID}`]);
    expect(printed).not.toContain(other.sandboxID);
    // Signed with another secret: 401, and nothing logged but the refusal.
    const body = JSON.stringify({ type: "sandbox.lifecycle.killed", sandboxId: other.sandboxID, eventData: { sandbox_metadata: { app: "lifecycle-webhook-demo" } } });
    const forged = await fetch(url, { method: "POST", body, headers: { [WEBHOOK_HEADERS.signatureVersion]: "v1", [WEBHOOK_HEADERS.signature]: webhookSignature("not-the-secret", body) } });
    expect(forged.status).toBe(401);
    await until("the refusal", () => printed.includes("refused a request: not a v1 delivery signed with WEBHOOK_SECRET"), 5_000);
    expect(printed).not.toContain(other.sandboxID);
    await client.webhooks.delete(hook.id);
  });
});
