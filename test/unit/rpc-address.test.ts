import { describe, expect, it } from "vitest";
import { resolveOptions } from "../../sdk/config";
import { basicUserAuth, ENVD_PORT, sandboxAddress } from "../../sdk/transport/sandbox-host";

describe("sandboxAddress", () => {
  it("builds the per-sandbox host on port 49983 under the domain", () => {
    const opts = resolveOptions({}, { E2B_DOMAIN: "example.dev" });
    expect(sandboxAddress("i0123abc", opts)).toEqual({ baseUrl: "https://49983-i0123abc.example.dev", headers: {} });
    expect(ENVD_PORT).toBe(49983);
  });

  it("defaults the domain to e2b.app", () => {
    expect(sandboxAddress("sbx1", resolveOptions({}, {})).baseUrl).toBe("https://49983-sbx1.e2b.app");
  });

  it("uses E2B_SANDBOX_URL with routing headers when it is set", () => {
    const opts = resolveOptions({}, { E2B_SANDBOX_URL: "http://127.0.0.1:3000/" });
    expect(sandboxAddress("sbx1", opts)).toEqual({
      baseUrl: "http://127.0.0.1:3000",
      headers: { "E2b-Sandbox-Id": "sbx1", "E2b-Sandbox-Port": "49983" },
    });
  });

  it("prefers the sandboxUrl option over the env var", () => {
    const opts = resolveOptions({ sandboxUrl: "http://proxy.local" }, { E2B_SANDBOX_URL: "http://other" });
    expect(sandboxAddress("sbx1", opts, 8080)).toEqual({
      baseUrl: "http://proxy.local",
      headers: { "E2b-Sandbox-Id": "sbx1", "E2b-Sandbox-Port": "8080" },
    });
  });

  it("refuses an ID that cannot be a host label", () => {
    expect(() => sandboxAddress("a.b/c", resolveOptions({}, {}))).toThrow(
      'Invalid sandbox ID "a.b/c": expected letters, digits and dashes, as returned when the sandbox was created.',
    );
  });
});

describe("basicUserAuth", () => {
  it("encodes the user with an empty password", () => {
    expect(basicUserAuth("root")).toBe(`Basic ${Buffer.from("root:").toString("base64")}`);
    expect(basicUserAuth("root")).toBe("Basic cm9vdDo=");
  });
});
