/**
 * A request that outlasts its deadline, against the emulator with latency injected (its fault
 * switches): a read (GET) is repeated, a bounded number of times; a create (POST) never is, since the
 * real service may have made the resource all the same (the emulator, whose client left before it read
 * the body, did not: only the count of POSTs it received is checked).
 */
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { PlatformClient } from "../../sdk/platform/client";
import type { AttemptOutcome } from "../../sdk/transport/retry";
import { failure } from "./expect-error";

/** The deadline of each request (room for an unhurried answer on a loaded machine); the injected latency is well past it. */
const DEADLINE_MS = 500;
const LATENCY_MS = 2_000;

let emu: Emulator;
let client: PlatformClient;
let sandboxID: string;

beforeAll(async () => {
  emu = await createEmulator();
  client = new PlatformClient({ apiUrl: emu.apiUrl, apiKey: emu.apiKey, requestTimeoutMs: DEADLINE_MS, retry: { maxAttempts: 5, baseDelayMs: 5, maxDelayMs: 20 } }, {});
  sandboxID = (await client.sandboxes.create({ templateID: "base", timeout: 600 })).sandboxID;
});

afterEach(() => emu.setFaults({}));

afterAll(async () => {
  await client?.close();
  await emu?.close();
});

/** Waits until the emulator has finished every call it received (a late one completes after its client gave up). */
async function settled(calls: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (emu.calls().length < calls && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

test("a GET that times out once is repeated, and the repeat's answer is the call's", async () => {
  emu.setFaults({ latencyMs: LATENCY_MS });
  const repeats: AttemptOutcome[] = [];
  // The service is slow for the first attempt only: the faults end as the repeat is decided.
  const detail = await client.sandboxes.get(sandboxID, { onRetry: (outcome) => (repeats.push(outcome), emu.setFaults({})) });
  expect(detail.sandboxID).toBe(sandboxID);
  expect(repeats).toEqual([{ kind: "timeout" }]);
});

test("a GET that keeps timing out is repeated once, then fails naming the deadline and where to raise it", async () => {
  emu.setFaults({ latencyMs: LATENCY_MS });
  const before = emu.calls().length;
  const err = await failure(client.sandboxes.get(sandboxID));
  expect(err.code).toBe("timeout");
  expect(err.message).toBe(
    `GET /sandboxes/{id} timed out after ${DEADLINE_MS} ms without a complete response (gave up after 2 attempts). If the service is slow, ` +
      "raise requestTimeoutMs: `pulumi config set sandbox:requestTimeoutMs <ms>` in a Pulumi stack, else the PULUMI_SANDBOX_REQUEST_TIMEOUT_MS " +
      "environment variable or the client's requestTimeoutMs option.",
  );
  await settled(before + 2);
  expect(emu.calls().slice(before).map((c) => `${c.method} ${c.path}`)).toEqual([`GET /sandboxes/${sandboxID}`, `GET /sandboxes/${sandboxID}`]);
});

test("a create that times out is not repeated without an idempotency key", async () => {
  emu.setFaults({ latencyMs: LATENCY_MS });
  const before = emu.calls().length;
  const repeats: AttemptOutcome[] = [];
  const err = await failure(client.sandboxes.create({ templateID: "base", timeout: 600 }, { onRetry: (outcome) => repeats.push(outcome) }));
  expect(err.code).toBe("timeout");
  expect(err.message).toMatch(/^POST \/v2\/sandboxes timed out after 500 ms without a complete response\. /);
  expect(repeats).toEqual([]);
  await settled(before + 1);
  await new Promise((r) => setTimeout(r, LATENCY_MS)); // time for a repeat, had there been one
  expect(emu.calls().slice(before).filter((c) => c.method === "POST").map((c) => c.path)).toEqual(["/v2/sandboxes"]);
});

test("a create with an idempotency key that times out is repeated, and the service answers with the one sandbox it made", async () => {
  emu.setFaults({ latencyMs: LATENCY_MS });
  const before = emu.calls().length;
  const repeats: AttemptOutcome[] = [];
  const pending = client.sandboxes.create({ templateID: "base", timeout: 600 }, { onRetry: (outcome) => { repeats.push(outcome); emu.setFaults({}); } }, { idempotencyKey: "timeout-retry-1" });
  const made = await pending;
  expect(repeats).toEqual([{ kind: "timeout" }]);
  await settled(before + 2);
  const posts = emu.calls().slice(before).filter((c) => c.method === "POST");
  // The repeat is answered first; the first attempt, which the client gave up on, ends however it ends.
  expect(posts.map((c) => c.path)).toEqual(["/v2/sandboxes", "/v2/sandboxes"]);
  expect(posts[0]!.status).toBe(201);
  expect(emu.state.sandboxes().filter((x) => x.sandboxID === made.sandboxID)).toHaveLength(1);
  await client.sandboxes.kill(made.sandboxID);
});
