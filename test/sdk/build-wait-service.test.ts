/**
 * Templates.waitForBuild against the emulator's builds, whose logs end as the service's do (the
 * builder's last line, then `ready` up to a second later): a good build read whole and in order, a
 * failing one, one that outlasts the deadline, and a rate-limited status endpoint whose 429s and
 * Retry-After the wait obeys without giving up.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { PlatformClient } from "../../sdk/platform/client";
import type { BuildLogEntry } from "../../sdk/schemas/templates";
import type { BuildFailedError } from "../../sdk/platform/templates";
import { failure } from "./expect-error";

let emu: Emulator;
let sdk: PlatformClient;

beforeAll(async () => {
  emu = await createEmulator({ buildDelayMs: 1500 });
  // Two attempts per request, so a run of 429s outlasts the HTTP layer's repeats and reaches the wait.
  sdk = new PlatformClient({ apiUrl: emu.apiUrl, apiKey: emu.apiKey, accessToken: emu.accessToken, retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 5_000 } }, {});
});
afterAll(async () => {
  await sdk.close();
  await emu.close();
});

const DOCKERFILE = "FROM e2bdev/base\nRUN apt-get update\nWORKDIR /app\nRUN echo ready";
const statusCalls = (templateID: string, since: number) =>
  emu.calls(since).filter((c) => c.path.startsWith(`/templates/${templateID}/builds/`));

/** Every entry of a build, read in one request once it is over. */
async function wholeLog(templateID: string, buildID: string): Promise<BuildLogEntry[]> {
  return (await sdk.templates.buildStatus(templateID, buildID)).logEntries;
}

describe("waitForBuild against the emulator", () => {
  test("a good build: every entry once and in order, the builder's last line before ready", async () => {
    const accepted = await sdk.templates.create({ dockerfile: DOCKERFILE, startCmd: "npm start" });
    const seen: BuildLogEntry[] = [];
    const done = await sdk.templates.waitForBuild(accepted.templateID, accepted.buildID, { onLog: (e) => seen.push(e) });
    expect(done.status).toBe("ready");
    const all = await wholeLog(accepted.templateID, accepted.buildID);
    expect(seen).toEqual(all);
    expect(all.map((e) => e.step)).toEqual([undefined, "base", "1", "2", "3", "finalize", "finalize", undefined]);
    const last = all.at(-1)!;
    expect(last.message).toMatch(/^Build finished, took \d+s$/);
    const build = (await sdk.templates.get(accepted.templateID)).builds.find((b) => b.buildID === accepted.buildID)!;
    expect(Date.parse(last.timestamp)).toBeLessThan(Date.parse(build.finishedAt!));
  });

  test("a failing build: build_failed naming the step, after reading the whole log", async () => {
    const accepted = await sdk.templates.create({ dockerfile: "FROM e2bdev/base\nRUN echo ok\nRUN exit 3\nRUN echo never" });
    const seen: string[] = [];
    const err = (await failure(sdk.templates.waitForBuild(accepted.templateID, accepted.buildID, { onLog: (e) => seen.push(e.message) }))) as BuildFailedError;
    expect(err.code).toBe("build_failed");
    expect(err.message).toBe(
      `Template ${accepted.templateID} build ${accepted.buildID} failed at step 2: failed to run command 'exit 3': exit status 3\nLast log lines:\n` +
        err.build.reason!.logEntries!.map((e) => `  ${e.timestamp} [error] ${e.message}`).join("\n"),
    );
    expect(err.build.reason?.logEntries?.map((e) => e.message)).toEqual(["command 'exit 3' exited with code 3", "failed to run command 'exit 3': exit status 3"]);
    expect(seen).toEqual((await wholeLog(accepted.templateID, accepted.buildID)).map((e) => e.message));
    expect(seen.some((m) => m.includes("never"))).toBe(false);
  });

  test("a build that outlasts the deadline: code timeout naming the build and what was last seen", async () => {
    const slow = await createEmulator({ buildDelayMs: 120_000 });
    const client = new PlatformClient({ apiUrl: slow.apiUrl, apiKey: slow.apiKey, accessToken: slow.accessToken }, {});
    try {
      const accepted = await client.templates.create({ dockerfile: DOCKERFILE });
      const err = await failure(client.templates.waitForBuild(accepted.templateID, accepted.buildID, { timeoutMs: 3000 }));
      expect(err.code).toBe("timeout");
      expect(err.message).toBe(
        `Timed out after 3 s waiting for template ${accepted.templateID} build ${accepted.buildID} to finish; last seen: status waiting, 0 log entries.`,
      );
    } finally {
      await client.close();
      await slow.close();
    }
  });

  test("429s: the wait goes on past the HTTP layer's repeats, and never asks again before Retry-After", async () => {
    const accepted = await sdk.templates.create({ dockerfile: DOCKERFILE });
    const since = emu.calls().at(-1)!.seq;
    emu.setFaults({ rate429: 1 });
    const seen: BuildLogEntry[] = [];
    const waiting = sdk.templates.waitForBuild(accepted.templateID, accepted.buildID, { onLog: (e) => seen.push(e) });
    waiting.catch(() => undefined); // awaited below; a wait that gives up early must fail the test, not the run
    // Three refusals: one request's two attempts (its repeat after Retry-After), then the wait's own next poll.
    for (let tries = 0; statusCalls(accepted.templateID, since).filter((c) => c.status === 429).length < 3; tries++) {
      if (tries > 1200) throw new Error("the wait stopped asking while rate limited");
      await new Promise((r) => setTimeout(r, 25));
    }
    emu.setFaults({});
    const done = await waiting;
    expect(done.status).toBe("ready");
    expect(seen).toEqual(await wholeLog(accepted.templateID, accepted.buildID));
    const calls = statusCalls(accepted.templateID, since);
    expect(calls.filter((c) => c.status === 429).length).toBeGreaterThanOrEqual(3);
    // Retry-After: 1 on every 429: the next status request came at least a second after it.
    calls.forEach((c, i) => {
      const next = calls[i + 1];
      if (c.status === 429 && next) expect(Date.parse(next.time) - Date.parse(c.time)).toBeGreaterThanOrEqual(1000);
    });
  });
});
