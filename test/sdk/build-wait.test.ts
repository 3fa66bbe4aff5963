/**
 * Templates.waitForBuild against a real local server that plays a build's status endpoint:
 * paged logs, the drain after the final status, failures with a reason, deadlines and aborts.
 */
import { afterEach, describe, expect, test } from "vitest";
import { PlatformClient } from "../../sdk/platform/client";
import { failure } from "./expect-error";
import type { BuildFailedError } from "../../sdk/platform/templates";
import type { BuildLogEntry } from "../../sdk/schemas/templates";
import { json, startPeer, type Peer } from "./http-peer";

const entry = (i: number, level: BuildLogEntry["level"] = "info"): BuildLogEntry => ({
  timestamp: `2025-01-01T00:00:0${i}Z`,
  message: `line ${i}`,
  level,
});

/** Status answers by request number; log entries are served from `logsOffset`, at most 2 per page. */
interface Script {
  status: (n: number) => string;
  available: (n: number) => BuildLogEntry[];
  reason?: unknown;
}

const open: { peers: Peer[]; clients: PlatformClient[] } = { peers: [], clients: [] };
afterEach(async () => {
  await Promise.all(open.clients.splice(0).map((c) => c.close()));
  await Promise.all(open.peers.splice(0).map((p) => p.close()));
});

async function buildServer(script: Script): Promise<{ peer: Peer; client: PlatformClient; offsets: () => number[] }> {
  const peer = await startPeer((req, res, n) => {
    const url = new URL(req.url, "http://x");
    if (url.pathname !== "/templates/t1/builds/b1/status") return json(res, 400, { code: 400, message: "Build 'b9' not found" });
    const offset = Number(url.searchParams.get("logsOffset") ?? 0);
    const page = script.available(n).slice(offset, offset + 2);
    const status = script.status(n);
    json(res, 200, { templateID: "t1", buildID: "b1", status, logs: [], logEntries: page, ...(script.reason && status === "error" ? { reason: script.reason } : {}) });
  });
  const client = new PlatformClient({ apiKey: "e2b_0123456789", apiUrl: peer.url, retry: { maxAttempts: 1 } }, {});
  open.peers.push(peer);
  open.clients.push(client);
  const offsets = () => peer.requests.map((r) => Number(new URL(r.url, "http://x").searchParams.get("logsOffset")));
  return { peer, client, offsets };
}

describe("waitForBuild", () => {
  const all = [1, 2, 3, 4, 5].map((i) => entry(i));

  test("pages through the logs in order, then drains after ready before resolving", async () => {
    // 1: waiting; 2–3: building, lines arriving; 4+: ready with all 5 lines written.
    const { client, offsets } = await buildServer({
      status: (n) => (n === 1 ? "waiting" : n < 4 ? "building" : "ready"),
      available: (n) => (n === 1 ? [] : n < 4 ? all.slice(0, 3) : all),
    });
    const seen: string[] = [];
    const info = await client.templates.waitForBuild("t1", "b1", { intervalMs: 5, onLog: (e) => seen.push(e.message) });
    expect(seen).toEqual(["line 1", "line 2", "line 3", "line 4", "line 5"]);
    // The offset advances by the entries received; polling goes on after ready until a page is empty.
    expect(offsets()).toEqual([0, 0, 2, 3, 5]);
    expect(info.status).toBe("ready");
    expect(info.logEntries.map((e) => e.message)).toEqual(seen);
  });

  test("a long build log reaches onLog whole, while the result keeps only its last 100 entries", async () => {
    const many = Array.from({ length: 250 }, (_, i) => ({ ...entry(0), message: `line ${i}` }));
    const { client } = await buildServer({ status: () => "ready", available: () => many });
    let seen = 0;
    const info = await client.templates.waitForBuild("t1", "b1", { intervalMs: 1, onLog: () => seen++ });
    expect(seen).toBe(250);
    expect(info.logEntries).toHaveLength(100);
    expect(info.logEntries[0]?.message).toBe("line 150");
    expect(info.logEntries.at(-1)?.message).toBe("line 249");
  });

  test("`uploaded` counts as ready", async () => {
    const { client } = await buildServer({ status: () => "uploaded", available: () => [] });
    expect((await client.templates.waitForBuild("t1", "b1", { intervalMs: 5 })).status).toBe("ready");
  });

  test("error: build_failed quoting the reason, its step and the last log lines; .build holds the result", async () => {
    const failing = [entry(1), entry(2, "warn"), entry(3, "error")];
    const { client } = await buildServer({
      status: (n) => (n < 2 ? "building" : "error"),
      available: () => failing,
      reason: { message: "command exited with code 127", step: "2", logEntries: [failing[2]] },
    });
    const err = (await failure(client.templates.waitForBuild("t1", "b1", { intervalMs: 5 }))) as BuildFailedError;
    expect(err.code).toBe("build_failed");
    expect(err.message).toBe(
      "Template t1 build b1 failed at step 2: command exited with code 127\nLast log lines:\n  2025-01-01T00:00:03Z [error] line 3",
    );
    expect(err.build.status).toBe("error");
    expect(err.build.reason?.step).toBe("2");
    expect(err.build.logEntries).toHaveLength(3);
  });

  test("error without a reason quotes the last lines received", async () => {
    const { client } = await buildServer({ status: () => "error", available: () => [entry(1), entry(2)] });
    const err = await failure(client.templates.waitForBuild("t1", "b1", { intervalMs: 5 }));
    expect(err.message).toBe(
      "Template t1 build b1 failed: the service gave no reason\nLast log lines:\n" +
        "  2025-01-01T00:00:01Z [info] line 1\n  2025-01-01T00:00:02Z [info] line 2",
    );
  });

  test("deadline: code timeout saying how long it waited and the last status", async () => {
    const { client } = await buildServer({ status: () => "building", available: () => [entry(1)] });
    const err = await failure(client.templates.waitForBuild("t1", "b1", { intervalMs: 20, timeoutMs: 300 }));
    expect(err.code).toBe("timeout");
    expect(err.message).toBe("Timed out after 300 ms waiting for template t1 build b1 to finish; last seen: status building, 1 log entries.");
  });

  test("abort ends the wait with code aborted", async () => {
    const { client } = await buildServer({ status: () => "building", available: () => [] });
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 100);
    const err = await failure(client.templates.waitForBuild("t1", "b1", { intervalMs: 20, signal: ctl.signal }));
    expect(err.code).toBe("aborted");
    expect(err.message).toContain("Stopped waiting for template t1 build b1 to finish");
  });

  test("an error answer of the status endpoint ends the wait unchanged", async () => {
    const { client } = await buildServer({ status: () => "building", available: () => [] });
    const err = await failure(client.templates.waitForBuild("t1", "b9"));
    expect(err.code).toBe("invalid_argument");
    expect(err.message).toBe("GET /templates/{id}/builds/{buildID}/status failed (400 invalid_argument): Build 'b9' not found");
  });
});
