import { describe, expect, test } from "vitest";
import { requireAccessToken, requireApiKey, resolveOptions } from "../../sdk/config";

describe("resolveOptions", () => {
  test("defaults: e2b.app and the api host under it", () => {
    const o = resolveOptions({}, {});
    expect(o.domain).toBe("e2b.app");
    expect(o.apiUrl).toBe("https://api.e2b.app");
    expect(o.sandboxUrl).toBeUndefined();
    expect(o.apiKey).toBeUndefined();
  });

  test("env vars fill what options leave out; the api URL follows the domain", () => {
    const o = resolveOptions({}, { E2B_DOMAIN: "example.dev", E2B_API_KEY: "e2b_abc", E2B_SANDBOX_URL: "http://127.0.0.1:9/" });
    expect(o.apiUrl).toBe("https://api.example.dev");
    expect(o.apiKey).toBe("e2b_abc");
    expect(o.sandboxUrl).toBe("http://127.0.0.1:9");
  });

  test("an explicit option wins over the env var", () => {
    const o = resolveOptions({ apiKey: "e2b_opt", apiUrl: "http://x/" }, { E2B_API_KEY: "e2b_env", E2B_API_URL: "http://y" });
    expect(o.apiKey).toBe("e2b_opt");
    expect(o.apiUrl).toBe("http://x");
  });

  test("an empty env var counts as unset", () => {
    expect(resolveOptions({}, { E2B_API_KEY: "  " }).apiKey).toBeUndefined();
  });

  test("retry options merge over the defaults", () => {
    expect(resolveOptions({ retry: { maxAttempts: 2 } }, {}).retry).toEqual({ maxAttempts: 2, baseDelayMs: 200, maxDelayMs: 10_000 });
  });

  test("a non-positive request timeout is refused", () => {
    expect(() => resolveOptions({ requestTimeoutMs: 0 }, {})).toThrow(/requestTimeoutMs must be a positive/);
  });

  test("the request timeout: the option, else PULUMI_SANDBOX_REQUEST_TIMEOUT_MS, else 60 s; a bad env value names the variable", () => {
    expect(resolveOptions({}, {}).requestTimeoutMs).toBe(60_000);
    expect(resolveOptions({}, { PULUMI_SANDBOX_REQUEST_TIMEOUT_MS: " 120000 " }).requestTimeoutMs).toBe(120_000);
    expect(resolveOptions({ requestTimeoutMs: 5_000 }, { PULUMI_SANDBOX_REQUEST_TIMEOUT_MS: "120000" }).requestTimeoutMs).toBe(5_000);
    for (const bad of ["0", "2m", "1.5", "-1"]) {
      expect(() => resolveOptions({}, { PULUMI_SANDBOX_REQUEST_TIMEOUT_MS: bad })).toThrow(
        `the PULUMI_SANDBOX_REQUEST_TIMEOUT_MS environment variable must be a positive whole number of milliseconds, got ${JSON.stringify(bad)}: ` +
          "set it to one (e.g. 120000), or leave it unset for 60000.",
      );
    }
  });
});

describe("missing credentials fail before any request and say where to set them", () => {
  test("API key", () => {
    const err = (() => { try { requireApiKey(resolveOptions({}, {})); } catch (e) { return e as { code: string; message: string }; } })();
    expect(err?.code).toBe("missing_credential");
    expect(err?.message).toContain("E2B_API_KEY");
    expect(err?.message).toContain("pulumi config set --secret sandbox:apiKey");
  });

  test("access token", () => {
    expect(() => requireAccessToken(resolveOptions({}, {}))).toThrow(/E2B_ACCESS_TOKEN.*sandbox:accessToken/s);
    expect(requireAccessToken(resolveOptions({ accessToken: "sk_e2b_1" }, {}))).toBe("sk_e2b_1");
  });
});
