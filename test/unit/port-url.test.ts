/**
 * The URL of a sandbox's port: the host the official SDK's `getHost(port)` gives (`e2b`, unmodified),
 * with https, for the service; under the configured `sandboxUrl`'s own host for a proxy or the emulator.
 */
import { ConnectionConfig } from "e2b";
import { describe, expect, test } from "vitest";
import { portUrl } from "../../sdk/transport/port-url";

describe("portUrl", () => {
  test("the service: https and the SDK's getHost, the sandbox's own domain winning over the client's", () => {
    const sdk = new ConnectionConfig({ domain: "example.dev" });
    expect(portUrl("sbx1", 8000, { domain: "example.dev", sandboxUrl: undefined })).toBe(`https://${sdk.getHost("sbx1", 8000, "example.dev")}`);
    expect(portUrl("sbx1", 8000, { domain: "example.dev", sandboxUrl: undefined }, "own.dev")).toBe(`https://${sdk.getHost("sbx1", 8000, "own.dev")}`);
    expect(portUrl("sbx1", 3000, { domain: "e2b.app", sandboxUrl: undefined }, null)).toBe("https://3000-sbx1.e2b.app");
  });

  test("a sandbox URL: its scheme and port, the per-sandbox host under its host", () => {
    const at = (sandboxUrl: string) => portUrl("sbx1", 8000, { domain: "e2b.app", sandboxUrl });
    expect(at("http://127.0.0.1:4321")).toBe("http://8000-sbx1.localhost:4321");
    expect(at("http://[::1]:4321")).toBe("http://8000-sbx1.localhost:4321");
    expect(at("http://localhost:4321")).toBe("http://8000-sbx1.localhost:4321");
    expect(at("https://sandbox.example.dev")).toBe("https://8000-sbx1.example.dev");
    expect(at("https://proxy.example.dev:8443")).toBe("https://8000-sbx1.proxy.example.dev:8443");
  });
});
