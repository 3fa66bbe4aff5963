import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { SandboxError } from "../../sdk/errors";
import { toSandboxError, type RpcErrorContext } from "../../sdk/transport/rpc-errors";

const TOKEN = "envd-secret-token-123";
const ctx: RpcErrorContext = { sandboxID: "sbx1", baseUrl: "http://127.0.0.1:9", what: "ListDir /tmp", secrets: [TOKEN] };

describe("toSandboxError", () => {
  it("maps Connect codes through CONNECT_CODES and names the call and sandbox", () => {
    const err = toSandboxError(new ConnectError("no such dir", Code.NotFound), ctx);
    expect(err.code).toBe("not_found");
    expect(err.message).toBe("ListDir /tmp on sandbox sbx1 failed (not_found): no such dir");
    expect(err.service).toEqual({ code: "not_found", message: "no such dir" });
    expect(toSandboxError(new ConnectError("exists", Code.AlreadyExists), ctx).code).toBe("conflict");
    expect(toSandboxError(new ConnectError("slow", Code.DeadlineExceeded), ctx).code).toBe("timeout");
    expect(toSandboxError(new ConnectError("busy", Code.ResourceExhausted), ctx)).toMatchObject({ code: "rate_limited", retryable: true });
  });

  it("turns envd's plain-JSON 401 (unary: its message; stream: 'HTTP 401') into unauthenticated", () => {
    for (const raw of ["unauthorized access, please provide a valid access token or method signing if supported", "HTTP 401"]) {
      const err = toSandboxError(new ConnectError(raw, Code.Unauthenticated), ctx);
      expect(err.code).toBe("unauthenticated");
      expect(err.status).toBe(401);
      expect(err.message).toBe(
        "ListDir /tmp was refused by sandbox sbx1: the access token is missing or wrong. The sandbox was created with " +
          "secure: true; pass its envdAccessToken (sent as X-Access-Token).",
      );
    }
  });

  it("keeps envd's own unauthenticated messages, such as an unknown user", () => {
    const err = toSandboxError(new ConnectError("invalid username: 'bob'", Code.Unauthenticated), ctx);
    expect(err.code).toBe("unauthenticated");
    expect(err.message).toBe("ListDir /tmp on sandbox sbx1 failed (unauthenticated): invalid username: 'bob'");
  });

  it("turns the proxy's 502 into unavailable saying the sandbox is not running", () => {
    for (const raw of ["The sandbox was not found", "HTTP 502"]) {
      const err = toSandboxError(new ConnectError(raw, Code.Unavailable), ctx);
      expect(err.code).toBe("unavailable");
      expect(err.status).toBe(502);
      expect(err.retryable).toBe(false);
      expect(err.message).toContain("sandbox sbx1 is not running or was not found (the sandbox proxy answered 502)");
    }
  });

  it("uses the HTTP status of other non-Connect answers", () => {
    expect(toSandboxError(new ConnectError("HTTP 429", Code.Unavailable), ctx)).toMatchObject({ code: "rate_limited", status: 429, retryable: true });
    expect(toSandboxError(new ConnectError("HTTP 503", Code.Unavailable), ctx)).toMatchObject({ code: "unavailable", status: 503, retryable: true });
  });

  it("says where it tried when the host cannot be reached", () => {
    const err = toSandboxError(new ConnectError("connect ECONNREFUSED 127.0.0.1:9", Code.Unavailable), ctx);
    expect(err).toMatchObject({ code: "unavailable", retryable: true });
    expect(err.message).toBe("ListDir /tmp could not reach the in-sandbox API of sandbox sbx1 at http://127.0.0.1:9: connect ECONNREFUSED 127.0.0.1:9");
  });

  it("maps an abort to aborted", () => {
    const err = toSandboxError(new DOMException("This operation was aborted", "AbortError"), ctx);
    expect(err.code).toBe("aborted");
    expect(err.message).toMatch(/^ListDir \/tmp on sandbox sbx1 was aborted by the caller/);
  });

  it("never lets the access token into a message", () => {
    const err = toSandboxError(new ConnectError(`bad header X-Access-Token: ${TOKEN}`, Code.InvalidArgument), ctx);
    expect(err.message).not.toContain(TOKEN);
    expect(err.message).toContain("[redacted]");
    expect(JSON.stringify(err.service)).not.toContain(TOKEN);
  });

  it("passes SandboxErrors through unchanged", () => {
    const original = new SandboxError({ code: "invalid_response", message: "x" });
    expect(toSandboxError(original, ctx)).toBe(original);
  });
});
