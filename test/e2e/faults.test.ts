/**
 * A misbehaving service, through the real engine: the fleet fixture (2 templates, 3 volumes, 6
 * provisioned sandboxes, half of them mounting a volume) goes up and is destroyed while the emulator
 * answers a seeded quarter of the platform calls with 429s, 503s and dropped connections (before and
 * after handling), with latency on every call. Then every create's answer is lost on its way back: the
 * provider must find what it made rather than make it again (a sandbox's create: its first answer is
 * lost, and the repeat with the same idempotency key gets the same sandbox, with no look-up). After each run the state and the
 * emulator must agree exactly: nothing twice, nothing unrecorded, nothing left after destroy.
 */
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { FaultSettings } from "../../emulator";
import { lastSeq, startStack, type E2eStack } from "./harness";
import { duplicates, faultCounts, FLEET, inventoryIDs, parseState } from "./fixtures/fleet/state";

/**
 * About 28% of platform calls disturbed (1 - .92^4). The seed fixes the sequence of rolls, so the counts
 * by kind depend only on how many calls a run makes.
 */
const FAULTS: FaultSettings = { latencyMs: 15, rate429: 0.08, rate503: 0.08, dropRate: 0.08, dropAfterRate: 0.08, faultSeed: 20261121 };
const SANDBOXES = 6;
const RESOURCES = 2 + 3 + SANDBOXES;

let s: E2eStack;

beforeAll(async () => {
  s = await startStack(FLEET, "e2e-faults");
  await s.ok("config", "set", "sandboxes", String(SANDBOXES));
}, 300_000);

afterAll(async () => {
  await s?.close();
});

/** The state holds exactly what the emulator holds, once each, and no operation is left pending. */
async function expectStateIsInventory(): Promise<void> {
  const state = parseState(await s.exported());
  expect(state.pending).toEqual([]);
  expect({ templates: state.templates, volumes: state.volumes, sandboxes: state.sandboxes }).toEqual(inventoryIDs(s.emulator));
  expect(state.resources).toHaveLength(RESOURCES);
  expect(duplicates(s.emulator)).toEqual([]);
}

let faultsFrom = 0;

test("under faults, up makes the fleet: every resource once, exactly what the state records", async () => {
  s.emulator.setFaults(FAULTS);
  faultsFrom = lastSeq(s.emulator);
  const up = await s.ok("up", "--yes", "--skip-preview");
  expect(up.output).toMatch(new RegExp(`\\+ ${RESOURCES + 1} created`)); // the stack too
  await expectStateIsInventory();
  const out = await s.outputs();
  expect(out.provisioned).toEqual(Array(SANDBOXES).fill(true));
  expect(out.templateBuilds).toEqual([1, 1]); // no template was built twice
  const mounted = s.emulator.state.sandboxes().filter((x) => (x.volumeMounts as unknown[] | undefined)?.length);
  expect(mounted).toHaveLength(3);
});

test("under faults, a new Dockerfile rebuilds both templates in place, once each", async () => {
  const before = await s.outputs();
  await s.ok("config", "set", "dockerfile", "FROM e2bdev/base:latest\nRUN echo fleet image v2");
  const up = await s.ok("up", "--yes", "--skip-preview");
  expect(up.output).toMatch(/~ 2 updated/);
  const after = await s.outputs();
  expect(after.templateIDs).toEqual(before.templateIDs);
  expect(after.sandboxIDs).toEqual(before.sandboxIDs);
  expect(after.templateBuilds).toEqual([2, 2]);
  await expectStateIsInventory();
});

test("under faults, destroy leaves nothing; a quarter of the calls were disturbed, every kind of fault among them", async () => {
  await s.ok("destroy", "--yes", "--skip-preview");
  expect(inventoryIDs(s.emulator)).toEqual({ templates: [], volumes: [], sandboxes: [] });
  const faults = faultCounts(s.emulator.calls(faultsFrom));
  console.info(`faults injected during up, rebuild and destroy: ${JSON.stringify(faults)}`);
  expect(faults.faulted / faults.platformCalls).toBeGreaterThanOrEqual(0.2);
  for (const kind of ["rate429", "rate503", "drop", "dropAfter"]) expect(faults.byKind[kind], kind).toBeGreaterThan(0);
});

/**
 * The calls that make something: a sandbox, a volume, a template or a template's new build (v1:
 * /templates[/{id}]; the current build system: a build request, /v3/templates, and its start).
 */
const START_ROUTE = /^\/(sandboxes|v2\/sandboxes|volumes|templates|templates\/[^/?]+|v3\/templates|v2\/templates\/[^/?]+\/builds\/[^/?]+)$/;

/**
 * A proxy in front of the platform API that hands every create and rebuild to the service, waits for
 * its answer, then drops the connection instead of passing the answer on: the caller is left not knowing
 * the outcome. A create carrying an idempotency key loses only its first answer: a repeat with the same
 * key is what the key is for. Everything else passes through untouched; the look-ups of sandboxes by
 * marker are counted.
 */
async function answerLosingProxy(target: string): Promise<{ url: string; lost: string[]; markerLookups: string[]; server: Server }> {
  const lost: string[] = [];
  const markerLookups: string[] = [];
  const keysSeen = new Set<string>();
  const isCreate = (method?: string, url?: string) => method === "POST" && START_ROUTE.test(url ?? "");
  const firstOfKey = (key: string | string[] | undefined) => typeof key !== "string" || (!keysSeen.has(key) && !!keysSeen.add(key));
  const server = createServer((req, res) => {
    const query = decodeURIComponent(decodeURIComponent(req.url ?? ""));
    if (req.method === "GET" && (req.url ?? "").startsWith("/v2/sandboxes?") && query.includes("pulumi-sandbox.resource=")) markerLookups.push(query);
    const upstream = request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      if (isCreate(req.method, req.url) && answer.statusCode !== undefined && answer.statusCode < 300 && firstOfKey(req.headers["idempotency-key"])) {
        answer.resume();
        answer.on("end", () => {
          lost.push(`${req.method} ${req.url} ${answer.statusCode}`);
          req.socket.destroy();
        });
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => req.socket.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lost, markerLookups, server };
}

test("when every create's and rebuild's answer is lost, the provider finds what it made instead of making it again", async () => {
  s.emulator.setFaults({});
  const proxy = await answerLosingProxy(s.emulator.apiUrl);
  const starts = (since: number) => s.emulator.calls(since).filter((c) => c.method === "POST" && START_ROUTE.test(c.path));
  try {
    await s.ok("config", "set", "sandbox:apiUrl", proxy.url);
    let since = lastSeq(s.emulator);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(new RegExp(`\\+ ${RESOURCES + 1} created`)); // destroy removed the stack too
    // One create per resource reached the service, and no answer of theirs reached the provider. A
    // template's is a build request and a start; the start, sent again, is refused as started (400). A
    // sandbox's create is sent twice with one idempotency key: the service answers the repeat with the
    // sandbox the first made, so the provider needs no look-up by marker to find it; its one listing
    // after a repeat names the create's nonce too (duplicates a deployment without keys would make).
    expect(starts(since).map((c) => c.status).sort()).toEqual([...Array(3 + 2 * SANDBOXES).fill(201), ...Array(4).fill(202), 400, 400]);
    expect(proxy.lost).toHaveLength(RESOURCES + 2);
    expect(proxy.markerLookups).toHaveLength(SANDBOXES);
    for (const query of proxy.markerLookups) expect(query).toMatch(/pulumi-sandbox\.nonce=[0-9a-f]{16}/);
    expect(s.emulator.calls(since).filter((c) => c.path.endsWith("/connect"))).toEqual([]);
    await expectStateIsInventory();
    expect((await s.outputs()).provisioned).toEqual(Array(SANDBOXES).fill(true));

    since = lastSeq(s.emulator);
    await s.ok("config", "set", "dockerfile", "FROM e2bdev/base:latest\nRUN echo fleet image v3");
    await s.ok("up", "--yes", "--skip-preview");
    // One rebuild each: a build request, its start, the start sent again (refused).
    expect(starts(since).map((c) => `${c.path.split("/")[1]} ${c.status}`).sort()).toEqual(["v2 202", "v2 202", "v2 400", "v2 400", "v3 202", "v3 202"]);
    expect(proxy.lost).toHaveLength(RESOURCES + 6);
    expect((await s.outputs()).templateBuilds).toEqual([2, 2]);
    await expectStateIsInventory();

    await s.ok("destroy", "--yes", "--skip-preview");
    expect(inventoryIDs(s.emulator)).toEqual({ templates: [], volumes: [], sandboxes: [] });
  } finally {
    await s.ok("config", "set", "sandbox:apiUrl", s.emulator.apiUrl);
    proxy.server.closeAllConnections();
    await new Promise((resolve) => proxy.server.close(resolve));
  }
});
