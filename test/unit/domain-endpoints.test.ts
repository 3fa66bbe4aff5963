/**
 * Config from the domain alone: with only a domain (option or E2B_DOMAIN), every endpoint derives from
 * it as the official SDK derives it (its ConnectionConfig, imported unmodified), and the names it makes
 * under `localhost` resolve to loopback in the sdk's own connections (RFC 6761; transport/loopback-lookup.ts).
 */
import { ConnectionConfig } from "e2b";
import { describe, expect, test } from "vitest";
import { resolveOptions } from "../../sdk/config";
import { isLocalhostName, loopbackLookup } from "../../sdk/transport/loopback-lookup";
import { portUrl } from "../../sdk/transport/port-url";
import { ENVD_PORT, sandboxAddress } from "../../sdk/transport/sandbox-host";
import { contentBaseUrl } from "../../sdk/volume-content/client";

describe("endpoints from the domain alone", () => {
  for (const [how, opts, env] of [
    ["the domain option", { domain: "localhost:8443" }, {}],
    ["E2B_DOMAIN", {}, { E2B_DOMAIN: "localhost:8443" }],
  ] as const) {
    test(`${how}: the API, envd, a port and the volume content API, as the official SDK derives them`, () => {
      const ours = resolveOptions(opts, env);
      const sdk = new ConnectionConfig({ domain: "localhost:8443" });
      expect(ours.apiUrl).toBe(sdk.apiUrl);
      expect(ours.apiUrl).toBe("https://api.localhost:8443");
      // `localhost:8443` is not one of the SDK's hosted domains, so it addresses envd by the sandbox's own host.
      const envd = sdk.getSandboxUrl("sbx1", { sandboxDomain: undefined as unknown as string, envdPort: ENVD_PORT });
      expect(sandboxAddress("sbx1", ours)).toEqual({ baseUrl: envd, headers: {} });
      expect(portUrl("sbx1", 8080, ours)).toBe(`https://${sdk.getHost("sbx1", 8080, undefined as unknown as string)}`);
      expect(contentBaseUrl(ours, { domain: null })).toBe("https://api.localhost:8443");
    });
  }

  test("E2B_API_URL and E2B_SANDBOX_URL still win over the domain", () => {
    const ours = resolveOptions({}, { E2B_DOMAIN: "localhost:8443", E2B_API_URL: "http://127.0.0.1:1", E2B_SANDBOX_URL: "http://127.0.0.1:2" });
    expect([ours.apiUrl, sandboxAddress("sbx1", ours).baseUrl]).toEqual(["http://127.0.0.1:1", "http://127.0.0.1:2"]);
  });
});

describe("loopbackLookup", () => {
  const lookup = (host: string, options: object) =>
    new Promise<unknown[]>((resolve) => loopbackLookup(host, options, (err, address, family) => resolve([err?.code ?? null, address, family])));

  test("localhost and every name under it are loopback, as RFC 6761 lets a resolver answer", async () => {
    expect(["localhost", "api.localhost", "49983-sbx1.E2B.localhost", "localhost."].map(isLocalhostName)).toEqual([true, true, true, true]);
    expect(await lookup("api.localhost", {})).toEqual([null, "127.0.0.1", 4]);
    expect(await lookup("49983-sbx1.localhost", { family: 6 })).toEqual([null, "::1", 6]);
    expect((await lookup("api.localhost", { all: true }))[1]).toEqual([{ address: "127.0.0.1", family: 4 }, { address: "::1", family: 6 }]);
  });

  test("other names go to the system resolver: one that only ends like localhost is not taken for it", async () => {
    expect(["notlocalhost", "localhost.example", "e2b.app"].map(isLocalhostName)).toEqual([false, false, false]);
    expect((await lookup("notlocalhost.invalid", {}))[0]).toBe("ENOTFOUND");
  });
});
