import { describe, expect, test } from "vitest";
import { CONNECT_CODES, codeForStatus, isSandboxError, redact, RETRYABLE_STATUSES, SandboxError } from "../../sdk/errors";
import { BuildFailedError } from "../../sdk/platform/templates";

describe("HTTP status → code", () => {
  test.each([
    [400, "invalid_argument"],
    [401, "unauthenticated"],
    [403, "permission_denied"],
    [404, "not_found"],
    [409, "conflict"],
    [410, "not_found"],
    [422, "invalid_argument"],
    [429, "rate_limited"],
    [500, "internal"],
    [501, "not_implemented"],
    [502, "unavailable"],
    [503, "unavailable"],
    [504, "timeout"],
    [507, "internal"],
    [418, "unknown"],
  ])("%d → %s", (status, code) => {
    expect(codeForStatus(status)).toBe(code);
  });

  test("retryable statuses are the transient ones only", () => {
    expect([...RETRYABLE_STATUSES].sort()).toEqual([429, 502, 503, 504]);
  });
});

describe("Connect code → code", () => {
  test.each([
    ["canceled", "aborted"],
    ["deadline_exceeded", "timeout"],
    ["not_found", "not_found"],
    ["already_exists", "conflict"],
    ["resource_exhausted", "rate_limited"],
    ["failed_precondition", "invalid_argument"],
    ["unauthenticated", "unauthenticated"],
    ["unavailable", "unavailable"],
    ["data_loss", "internal"],
  ])("%s → %s", (connect, code) => {
    expect(CONNECT_CODES[connect]).toBe(code);
  });

  test("every one of the 16 Connect codes is mapped", () => {
    expect(Object.keys(CONNECT_CODES)).toHaveLength(16);
  });
});

describe("SandboxError", () => {
  test("carries code, status, service body, retryable and cause", () => {
    const cause = new Error("socket");
    const err = new SandboxError({ code: "unavailable", message: "m", status: 503, service: { code: 503, message: "busy" }, retryable: true, cause });
    expect(err).toMatchObject({ name: "SandboxError", code: "unavailable", status: 503, service: { code: 503, message: "busy" }, retryable: true, message: "m" });
    expect(err.cause).toBe(cause);
    expect(new SandboxError({ code: "internal", message: "x" }).retryable).toBe(false);
  });

  test("isSandboxError checks shape, so a copy from a second module instance passes", () => {
    const copy = Object.assign(new Error("x"), { name: "SandboxError", code: "not_found" });
    expect(isSandboxError(copy)).toBe(true);
    expect(isSandboxError(new Error("x"))).toBe(false);
    expect(isSandboxError({ name: "SandboxError" })).toBe(false);
    expect(isSandboxError(null)).toBe(false);
  });

  test("BuildFailedError is a SandboxError with code build_failed and the final build", () => {
    const build = { templateID: "t", buildID: "b", status: "error" as const, logs: [], logEntries: [] };
    const err = new BuildFailedError("failed", build);
    expect(isSandboxError(err)).toBe(true);
    expect(err.code).toBe("build_failed");
    expect(err.build).toBe(build);
  });
});

describe("redact", () => {
  test("removes every occurrence of each secret", () => {
    expect(redact("key e2b_0123abcd and again e2b_0123abcd; tok sk_e2b_999999", ["e2b_0123abcd", "sk_e2b_999999"])).toBe(
      "key [redacted] and again [redacted]; tok [redacted]",
    );
  });

  test("ignores unset and empty values; a short secret is still a secret", () => {
    expect(redact("a b c", [undefined, "", "b"])).toBe("a [redacted] c");
  });

  test("a secret that contains another is removed whole", () => {
    expect(redact("token=abc123; id=abc", ["abc", "abc123"])).toBe("token=[redacted]; id=[redacted]");
  });

  test("a secret of several lines is removed whole, and each of its lines wherever it shows alone", () => {
    const key = "-----BEGIN KEY-----\nMIIEvQIBADANBgkq\n  hkiG9w0BAQEFAASC\r\n-----END KEY-----\n";
    expect(redact(`key: ${key}done`, [key])).toBe("key: [redacted]done");
    // Output comes a line at a time, re-indented; a line may sit inside a longer one.
    expect(redact("line 2: MIIEvQIBADANBgkq", [key])).toBe("line 2: [redacted]");
    expect(redact("    hkiG9w0BAQEFAASC (continued)", [key])).toBe("    [redacted] (continued)");
    expect(redact("-----END KEY-----", [key])).toBe("[redacted]");
  });

  test("a line of a secret that holds no letter or digit is left alone: it tells nothing", () => {
    const json = '{\n  "token": "s3cr3t-value"\n}';
    expect(redact('config {"a": 1} and "token": "s3cr3t-value"', [json])).toBe('config {"a": 1} and [redacted]');
  });

  test("a Dockerfile built around a token: the instruction that holds it is hidden in a build log line", () => {
    const dockerfile = "FROM python:3.12\nRUN pip install --index-url https://u:tok-9f8e7d@pypi.example/simple app\n";
    expect(redact("step 2: [2/2] RUN pip install --index-url https://u:tok-9f8e7d@pypi.example/simple app", [dockerfile])).toBe("step 2: [2/2] [redacted]");
  });
});
