/**
 * Each operation the newest clients have and the platform spec lacks (NEWEST_CONTRACTS), called with
 * a request the emulator takes, so that `npm test`'s contract check sees a success answer of each
 * and holds it to the newest clients' schemas (test/contract/served.test.ts only probes them with
 * placeholder IDs, which end in errors). Raw HTTP, as the clients send it: the newest npm client has
 * no call for some of these. What each route does is tested in test/emulator/ (idempotent creates,
 * template-routes-newest, newest-sandbox-fields); here only that it answers, in the contract's shape.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { buildFinished, client, type Client } from "../emulator/platform-helpers";
import { ContractChecker } from "./checker";
import { loadContract, NEWEST_CONTRACTS } from "./exchanges";

const platform = Object.keys(loadContract().operations);
const newest = NEWEST_CONTRACTS.map((path) => new ContractChecker(loadContract(path)));
/** Every operation the newest contracts have beyond the platform spec. */
const NEWEST_ONLY = [...new Set(newest.flatMap((c) => Object.keys(c.contract.operations)))].filter((op) => !platform.includes(op)).sort();

let emu: Emulator;
let c: Client;
/** The operations answered 2xx in this file, as the newest contracts name them. */
const answered = new Set<string>();

beforeAll(async () => {
  emu = await createEmulator({ buildDelayMs: 10 });
  c = client(emu);
});
afterAll(() => emu?.close());

/** Sends a request, expects `status`, and notes the operation it was (checked by the run's contract check). */
async function expectAnswer(method: string, path: string, status: number, body?: unknown, headers: Record<string, string> = {}) {
  const res = await c.call(method, path, body, { "x-api-key": emu.apiKey, ...headers });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
  const bare = path.split("?")[0]!;
  for (const checker of newest) {
    const operation = checker.operationOf(method, bare);
    if (operation === undefined) continue;
    answered.add(operation);
    // The same check the run's teardown makes, here at once so a failure names this test.
    expect(checker.check({ method, path: bare, status, responseBody: res.body })).toEqual([]);
  }
  return res.body;
}

describe("the newest clients' operations, each answered with success", () => {
  test("POST /v2/sandboxes with an Idempotency-Key, the same create twice; POST /v2/sandboxes/{id}/connect, running and paused", async () => {
    const create = { templateID: "base", timeout: 60, metadata: { probe: "newest" } };
    const key = { "Idempotency-Key": "newest-routes-1" };
    const made = await expectAnswer("POST", "/v2/sandboxes", 201, create, key);
    expect((await expectAnswer("POST", "/v2/sandboxes", 201, create, key)).sandboxID).toBe(made.sandboxID);
    await expectAnswer("POST", `/v2/sandboxes/${made.sandboxID}/connect`, 200, { timeout: 60 });
    expect((await c.post(`/sandboxes/${made.sandboxID}/pause`, {})).status).toBe(204);
    await expectAnswer("POST", `/v2/sandboxes/${made.sandboxID}/connect`, 201, { timeout: 60 });
    expect((await c.del(`/sandboxes/${made.sandboxID}`)).status).toBe(204);
  });

  test("GET /default-templates", async () => {
    expect((await expectAnswer("GET", "/default-templates", 200)).length).toBeGreaterThan(0);
  });

  test("GET /templates/{templateID}/tags/count, /exists, /groups and /{tag}/assignments of a built template", async () => {
    const requested = await expectAnswerOf(c.post("/v3/templates", { name: "newest-contract", tags: ["stable"] }), 202);
    const { templateID, buildID } = requested as { templateID: string; buildID: string };
    await expectAnswerOf(c.post(`/v2/templates/${templateID}/builds/${buildID}`, { fromImage: "e2bdev/base" }), 202);
    expect((await buildFinished(c, templateID, buildID)).status).toBe("ready");
    expect(await expectAnswer("GET", `/templates/${templateID}/tags/count`, 200)).toEqual({ total: 1 });
    expect(await expectAnswer("GET", `/templates/${templateID}/tags/exists?tag=stable`, 200)).toEqual({ exists: true, normalizedTag: "stable" });
    expect((await expectAnswer("GET", `/templates/${templateID}/tags/groups?assignmentLimit=2`, 200)).tags).toHaveLength(1);
    expect((await expectAnswer("GET", `/templates/${templateID}/tags/stable/assignments?limit=1`, 200)).data).toHaveLength(1);
  });

  test("every operation the newest contracts add was answered above", () => {
    expect(NEWEST_ONLY.length).toBeGreaterThan(0);
    expect(NEWEST_ONLY.filter((op) => !answered.has(op))).toEqual([]);
  });
});

async function expectAnswerOf(pending: Promise<{ status: number; body: unknown }>, status: number): Promise<unknown> {
  const res = await pending;
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
}
