import { describe, expect, test } from "vitest";
import { DEFAULT_RETRY } from "../../sdk/config";
import { backoffDelay, classifyTransportError, isIdempotentMethod, parseRetryAfter, parseShouldRetry, retryDecision, type AttemptOutcome } from "../../sdk/transport/retry";

const policy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1_000 };
const top = () => 0.999999; // jitter draw at the ceiling
const status = (s: number, retryAfterMs?: number): AttemptOutcome => ({ kind: "status", status: s, retryAfterMs });

describe("retryDecision", () => {
  test.each([
    // method, declared idempotent, outcome, repeated?
    ["GET", undefined, status(429), true],
    ["POST", false, status(429), true],
    // The concurrent-sandbox limit lasts until other sandboxes end: its caller waits, not the retry loop.
    ["POST", false, { kind: "status", status: 429, reason: "sandbox_limit" }, false],
    ["GET", undefined, status(502), true],
    ["GET", undefined, status(503), true],
    ["DELETE", undefined, status(504), true],
    ["PUT", undefined, status(503), true],
    ["POST", undefined, status(503), false],
    ["POST", true, status(503), true],
    ["PATCH", undefined, status(502), false],
    ["GET", undefined, status(500), false],
    ["GET", undefined, status(400), false],
    ["GET", undefined, status(404), false],
    ["GET", undefined, status(409), false],
    ["POST", false, { kind: "not_sent", errno: "ECONNREFUSED" }, true],
    ["GET", undefined, { kind: "not_sent", errno: "ENOTFOUND" }, true],
    ["GET", undefined, { kind: "dropped", errno: "ECONNRESET" }, true],
    ["POST", undefined, { kind: "dropped", errno: "UND_ERR_SOCKET" }, false],
    ["POST", true, { kind: "dropped", errno: "UND_ERR_SOCKET" }, true],
    ["GET", undefined, { kind: "timeout" }, true],
    ["HEAD", undefined, { kind: "timeout" }, true],
    ["PUT", undefined, { kind: "timeout" }, false],
    ["DELETE", undefined, { kind: "timeout" }, false],
    ["POST", undefined, { kind: "timeout" }, false],
    ["POST", true, { kind: "timeout" }, false],
    ["PATCH", true, { kind: "timeout" }, false],
  ] as const)("%s (idempotent %s) after %j → retry %s", (method, idem, outcome, retry) => {
    expect(retryDecision(method, idem, outcome, 1, policy).retry).toBe(retry);
  });

  test("stops at the attempt budget, whatever the outcome", () => {
    expect(retryDecision("GET", undefined, status(503), 3, policy).retry).toBe(true);
    expect(retryDecision("GET", undefined, status(503), 4, policy)).toEqual({ retry: false, why: "exhausted" });
    expect(retryDecision("POST", false, status(429), 4, policy)).toEqual({ retry: false, why: "exhausted" });
    expect(retryDecision("GET", undefined, status(503), 1, { ...policy, maxAttempts: 1 })).toEqual({ retry: false, why: "exhausted" });
  });

  test("says why it will not repeat: a permanent answer, or a repeat that might do the work twice", () => {
    expect(retryDecision("GET", undefined, status(400), 1, policy)).toEqual({ retry: false, why: "permanent" });
    expect(retryDecision("GET", undefined, status(400), 4, policy)).toEqual({ retry: false, why: "permanent" });
    expect(retryDecision("POST", undefined, { kind: "timeout" }, 1, policy)).toEqual({ retry: false, why: "unsafe" });
    expect(retryDecision("POST", undefined, status(503), 1, policy)).toEqual({ retry: false, why: "unsafe" });
    expect(retryDecision("POST", undefined, { kind: "dropped", errno: "ECONNRESET" }, 4, policy)).toEqual({ retry: false, why: "unsafe" });
  });

  test("a read that timed out is repeated once, within the attempt budget", () => {
    expect(retryDecision("GET", undefined, { kind: "timeout" }, 1, policy).retry).toBe(true);
    expect(retryDecision("GET", undefined, { kind: "timeout" }, 2, policy)).toEqual({ retry: false, why: "exhausted" });
    expect(retryDecision("GET", undefined, { kind: "timeout" }, 1, { ...policy, maxAttempts: 1 })).toEqual({ retry: false, why: "exhausted" });
  });

  test("Retry-After is honoured exactly, capped at maxDelayMs", () => {
    expect(retryDecision("POST", false, status(429, 300), 1, policy)).toEqual({ retry: true, delayMs: 300 });
    expect(retryDecision("POST", false, status(429, 60_000), 1, policy)).toEqual({ retry: true, delayMs: 1_000 });
    expect(retryDecision("GET", undefined, status(429, 0), 2, policy)).toEqual({ retry: true, delayMs: 0 });
  });

  test("without Retry-After a 429 backs off like any other retry", () => {
    expect(retryDecision("GET", undefined, status(429), 2, policy, top)).toEqual({ retry: true, delayMs: 199 });
  });

  test("Should-Retry is authoritative when present, for any method and status (the official SDKs since e2b 2.63 on PyPI)", () => {
    const marked = (s: number, shouldRetry: boolean): AttemptOutcome => ({ kind: "status", status: s, shouldRetry });
    expect(retryDecision("POST", false, marked(409, true), 1, policy).retry).toBe(true);
    expect(retryDecision("POST", false, marked(500, true), 1, policy).retry).toBe(true);
    expect(retryDecision("GET", undefined, marked(503, false), 1, policy)).toEqual({ retry: false, why: "permanent" });
    expect(retryDecision("POST", false, marked(429, false), 1, policy)).toEqual({ retry: false, why: "permanent" });
    // The team's limit is still waited for by its caller.
    expect(retryDecision("POST", false, { kind: "status", status: 429, shouldRetry: true, reason: "sandbox_limit" }, 1, policy).retry).toBe(false);
    expect(retryDecision("POST", false, { kind: "status", status: 409, shouldRetry: true, retryAfterMs: 1_000 }, 1, policy)).toEqual({ retry: true, delayMs: 1_000 });
    expect(parseShouldRetry(" TRUE ")).toBe(true);
    expect(parseShouldRetry("false")).toBe(false);
    expect(parseShouldRetry("yes")).toBe(false);
    expect(parseShouldRetry(undefined)).toBeUndefined();
  });

  test("a create with an idempotency key is repeated after a lost answer or a timeout; without one it is not", () => {
    expect(retryDecision("POST", true, { kind: "timeout" }, 1, policy, top, true).retry).toBe(true);
    expect(retryDecision("POST", true, { kind: "dropped", errno: "ECONNRESET" }, 1, policy, top, true).retry).toBe(true);
    expect(retryDecision("POST", undefined, { kind: "timeout" }, 1, policy, top, false)).toEqual({ retry: false, why: "unsafe" });
  });

  test("uses the default policy (5 attempts) when none is given", () => {
    expect(DEFAULT_RETRY.maxAttempts).toBe(5);
    expect(retryDecision("GET", undefined, status(503), 4).retry).toBe(true);
    expect(retryDecision("GET", undefined, status(503), 5).retry).toBe(false);
  });
});

describe("backoffDelay: exponential with full jitter, capped", () => {
  test("the ceiling doubles per attempt and stops at maxDelayMs", () => {
    expect([1, 2, 3, 4, 5, 10].map((a) => backoffDelay(a, policy, top))).toEqual([99, 199, 399, 799, 999, 999]);
  });

  test("a draw of 0 gives no wait; every draw stays in [0, ceiling)", () => {
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
    for (let i = 0; i < 500; i++) {
      const d = backoffDelay(3, policy);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThan(400);
      expect(Number.isInteger(d)).toBe(true);
    }
  });

  test("a huge attempt number does not overflow past the cap", () => {
    expect(backoffDelay(5_000, policy, top)).toBe(999);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");
  test.each([
    ["3", 3_000],
    [" 1 ", 1_000],
    ["0", 0],
    ["1.5", 1_500],
    ["Wed, 01 Jan 2025 00:00:05 GMT", 5_000],
    ["Tue, 31 Dec 2024 23:59:00 GMT", 0],
  ])("%j → %d ms", (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms);
  });

  test("absent or unreadable → undefined", () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("-3", now)).toBeUndefined();
  });
});

describe("classifyTransportError", () => {
  const err = (code: string) => Object.assign(new Error(code), { code });
  test("connect-phase failures are not_sent; later ones are dropped", () => {
    expect(classifyTransportError(err("ECONNREFUSED"))).toEqual({ kind: "not_sent", errno: "ECONNREFUSED" });
    expect(classifyTransportError(err("UND_ERR_CONNECT_TIMEOUT"))).toEqual({ kind: "not_sent", errno: "UND_ERR_CONNECT_TIMEOUT" });
    expect(classifyTransportError(err("ECONNRESET"))).toEqual({ kind: "dropped", errno: "ECONNRESET" });
    expect(classifyTransportError(err("UND_ERR_SOCKET"))).toEqual({ kind: "dropped", errno: "UND_ERR_SOCKET" });
  });

  test("looks inside AggregateError (happy eyeballs) and cause chains", () => {
    expect(classifyTransportError(new AggregateError([err("ECONNREFUSED"), err("ECONNREFUSED")]))).toEqual({ kind: "not_sent", errno: "ECONNREFUSED" });
    expect(classifyTransportError(new Error("fetch failed", { cause: err("EPIPE") }))).toEqual({ kind: "dropped", errno: "EPIPE" });
  });

  test("anything else is not a connection failure", () => {
    expect(classifyTransportError(err("UND_ERR_INVALID_ARG"))).toBeUndefined();
    expect(classifyTransportError(new Error("boom"))).toBeUndefined();
    expect(classifyTransportError("ECONNREFUSED")).toBeUndefined();
  });
});

test("isIdempotentMethod follows HTTP", () => {
  expect(["GET", "put", "DELETE", "HEAD"].every(isIdempotentMethod)).toBe(true);
  expect(["POST", "PATCH"].some(isIdempotentMethod)).toBe(false);
});
