/**
 * `network.rules` on POST /sandboxes and PUT /sandboxes/{id}/network: header transforms whose values may
 * refer to a team secret by name, checked as the service's validateNetworkRules checks them.
 */
import { describe, expect, test } from "vitest";
import { createSandbox, useEmulator } from "./platform-helpers";

const env = useEmulator();
const rules = (headers: Record<string, string>, domain = "api.example.com") => ({ [domain]: [{ transform: { headers } }] });
const MALFORMED = { code: 400, message: "Network transform header contains a malformed E2B placeholder." };

describe("network.rules", () => {
  test("a reference to a secret by name is kept as written, at create and by PUT .../network", async () => {
    const id = await createSandbox(env.c, { network: { rules: rules({ Authorization: "Bearer ${e2b.secrets.API-Token}" }) } });
    const res = await env.c.call("PUT", `/sandboxes/${id}/network`, { rules: rules({ "X-Key": "${e2b.secrets.other}" }) });
    expect(res.status).toBe(204);
  });

  test("a malformed reference is 400 with the service's message, on create and on PUT", async () => {
    for (const value of ["Bearer ${e2b.secrets.open", "${e2b.secrets.}", "${e2b.secrets.sec_x}", "${e2b.secrets.${e2b.secrets.x}"]) {
      const res = await env.c.post("/sandboxes", { templateID: "base", network: { rules: rules({ Authorization: value }) } });
      expect(res.body, value).toEqual(MALFORMED);
    }
    const id = await createSandbox(env.c);
    expect((await env.c.call("PUT", `/sandboxes/${id}/network`, { rules: rules({ A: "${e2b.secrets.a b}" }) })).body).toEqual(MALFORMED);
  });

  test("the limits: one rule per domain, domain names (or a leading wildcard) only, HTTP token header names", async () => {
    const post = (network: unknown) => env.c.post("/sandboxes", { templateID: "base", network });
    expect((await post({ rules: { "a.com": [{ transform: { headers: {} } }, { transform: { headers: {} } }] } })).body)
      .toEqual({ code: 400, message: 'Domain "a.com" can have at most 1 transform rule.' });
    expect((await post({ rules: rules({ A: "b" }, "*example.com") })).body).toEqual({ code: 400, message: 'Rule domain "*example.com" is not a valid domain name.' });
    expect((await post({ rules: rules({ A: "b" }, "*.example.com") })).status).toBe(201);
    expect((await post({ rules: rules({ "bad name": "v" }) })).body)
      .toEqual({ code: 400, message: 'Header name "bad name" in rule for domain "api.example.com" must contain only valid HTTP token characters.' });
  });
});
