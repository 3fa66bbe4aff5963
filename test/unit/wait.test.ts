import { describe, expect, test } from "vitest";
import { isSandboxError } from "../../sdk/errors";
import { failure } from "../sdk/expect-error";
import { abortable, formatDuration, sleep, waitFor } from "../../sdk/transport/wait";

describe("waitFor", () => {
  test("resolves with the first value that is done, polling until then", async () => {
    let n = 0;
    const v = await waitFor(async () => ++n, (x) => x === 3, { timeoutMs: 10_000, intervalMs: 1, what: "three" });
    expect(v).toBe(3);
    expect(n).toBe(3);
  });

  test("the pause grows between polls and stops at maxIntervalMs", async () => {
    const times: number[] = [];
    await waitFor(async () => times.push(performance.now()), (n) => n === 6, { timeoutMs: 20_000, intervalMs: 20, maxIntervalMs: 45, what: "x" });
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    // 20, 30, 45, 45, 45 scheduled; timers never fire early.
    expect(gaps[0]).toBeGreaterThanOrEqual(19);
    expect(gaps[1]).toBeGreaterThanOrEqual(29);
    expect(gaps[2]).toBeGreaterThanOrEqual(44);
    expect(gaps.length).toBe(5);
  });

  test("deadline: code timeout naming what was awaited and the last value", async () => {
    const err = await failure(
      waitFor(async () => ({ state: "pending" }), () => false, {
        timeoutMs: 150,
        intervalMs: 10,
        what: "sandbox i1 to be paused",
        describe: (v) => `state ${v.state}`,
      }),
    );
    expect(err.code).toBe("timeout");
    expect(err.reason).toBe("deadline");
    expect(err.message).toBe("Timed out after 150 ms waiting for sandbox i1 to be paused; last seen: state pending.");
  });

  test("deadline while a poll hangs (even one that ignores its signal): says nothing was received", async () => {
    const err = await failure(waitFor(() => new Promise<number>(() => undefined), () => true, { timeoutMs: 100, what: "a thing" }));
    expect(err.code).toBe("timeout");
    expect(err.message).toBe("Timed out after 100 ms waiting for a thing; no answer was received yet.");
  });

  test("the poll's signal fires at the deadline", async () => {
    let seen: AbortSignal | undefined;
    const err = await failure(
      waitFor(
        (signal) => {
          seen = signal;
          return new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("poll cancelled"))));
        },
        () => true,
        { timeoutMs: 80, what: "y" },
      ),
    );
    expect(err.code).toBe("timeout");
    expect(seen?.aborted).toBe(true);
  });

  test("the caller's abort ends the wait at once, during a pause, with code aborted", async () => {
    const ctl = new AbortController();
    let polls = 0;
    const started = performance.now();
    const p = waitFor(async () => ++polls, () => false, { timeoutMs: 60_000, intervalMs: 30_000, signal: ctl.signal, what: "the build" });
    setTimeout(() => ctl.abort(), 50);
    const err = await failure(p);
    expect(err.code).toBe("aborted");
    expect(err.message).toBe("Stopped waiting for the build: aborted by the caller.");
    expect(polls).toBe(1);
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  test("an already-aborted signal polls nothing; the reason is quoted", async () => {
    let polls = 0;
    const err = await failure(
      waitFor(async () => ++polls, () => true, { timeoutMs: 1000, signal: AbortSignal.abort("user pressed ^C"), what: "z" }),
    );
    expect(err.code).toBe("aborted");
    expect(err.message).toBe("Stopped waiting for z: aborted by the caller (user pressed ^C).");
    expect(polls).toBe(0);
  });

  test("an error from the poll ends the wait unchanged", async () => {
    const boom = new Error("not found");
    const err = await failure(waitFor(async () => { throw boom; }, () => true, { timeoutMs: 1000, what: "q" }));
    expect(err).toBe(boom);
    expect(isSandboxError(err)).toBe(false);
  });
});

describe("sleep and abortable", () => {
  test("sleep rejects with the signal's reason as soon as it fires", async () => {
    const ctl = new AbortController();
    const started = performance.now();
    const p = sleep(30_000, ctl.signal);
    setTimeout(() => ctl.abort(new Error("stop")), 20);
    await expect(p).rejects.toThrow("stop");
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  test("sleep resolves after the time when not aborted", async () => {
    const started = performance.now();
    await sleep(30, new AbortController().signal);
    expect(performance.now() - started).toBeGreaterThanOrEqual(29);
  });

  test("abortable passes through values and rejects on abort", async () => {
    await expect(abortable(Promise.resolve(7), new AbortController().signal)).resolves.toBe(7);
    await expect(abortable(new Promise(() => undefined), AbortSignal.abort(new Error("gone")))).rejects.toThrow("gone");
  });
});

test("formatDuration", () => {
  expect([250, 1000, 1500, 60_000].map(formatDuration)).toEqual(["250 ms", "1 s", "1.5 s", "60 s"]);
});
