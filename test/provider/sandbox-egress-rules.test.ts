/**
 * Sandbox `network.rules`: header transforms of egress requests, whose values may refer to a team
 * secret by name (`${e2b.secrets.<name>}`), sent at create and replaced in place, against the emulator.
 */
import { describe, expect, test } from "vitest";
import { secretRefs } from "../../provider/kinds/sandbox/egress-rules";
import { callsSince, checked, checkReasons, emulatorForFile, lastSeq, runtime } from "./harness";

const emu = emulatorForFile();
const REF = "Bearer ${e2b.secrets.API-Token}";
const rules = (value: string, domain = "api.example.com") => ({ [domain]: [{ transform: { headers: { Authorization: value } } }] });

describe("secretRefs", () => {
  test("reads the names referred to as the service does, and refuses a malformed reference", () => {
    expect(secretRefs(REF)).toEqual(["api-token"]);
    expect(secretRefs("a ${e2b.identity.tokens.x} b ${e2b.secrets.one}${e2b.secrets.two}")).toEqual(["one", "two"]);
    expect(secretRefs("no reference, a plain ${value}")).toEqual([]);
    for (const bad of ["${e2b.secrets.open", "${e2b.secrets.}", "${e2b.secrets.sec_abc}", "${e2b.secrets.a b}", "${e2b.secrets.${e2b.secrets.x}"]) {
      expect(secretRefs(bad), bad).toBeUndefined();
    }
  });
});

describe("check", () => {
  test("a malformed reference or header name is refused, naming the field path", async () => {
    expect(await checkReasons("Sandbox", { templateID: "base", network: { rules: rules("Bearer ${e2b.secrets.unclosed") } })).toEqual([
      "network.rules.api.example.com[0].transform.headers.Authorization: a secret reference must be ${e2b.secrets.<name>}, the name of a team secret (letters, digits, '_' and '-', not starting with sec_)",
    ]);
    expect(await checkReasons("Sandbox", { templateID: "base", network: { rules: { "x.com": [{ transform: { headers: { "bad name": "v" } } }] } } }))
      .toEqual([expect.stringMatching(/^network\.rules\.x\.com\[0\]\.transform\.headers.*header names must be HTTP tokens/)]);
    expect(await checkReasons("Sandbox", { templateID: "base", network: { rules: { "a.com": [{ transform: { headers: {} } }, { transform: { headers: {} } }] } } }))
      .toEqual(["network.rules.a.com: at most 1 rule per domain (the service's limit)"]);
    expect(await checkReasons("Sandbox", { templateID: "base", network: { rules: rules("v", "*") } }))
      .toEqual(["network.rules.*: keys must be domain names or a leading wildcard of one (*.example.com), not a bare * or an IP address"]);
    // A leading wildcard is a domain the service takes (docs/service.md#sandbox-fields-of-the-newest-sdks).
    expect(await checked("Sandbox", { templateID: "base", network: { rules: rules("v", "*.example.com") } })).toMatchObject({ network: { rules: rules("v", "*.example.com") } });
  });
});

describe("lifecycle", () => {
  test("create sends the rules with the reference as written; a change is one PUT .../network", async () => {
    const inputs = await checked("Sandbox", { templateID: "base", timeoutSeconds: 60, network: { rules: rules(REF) }, __resource: "proj/dev/egress" });
    const made = await runtime.create("Sandbox", inputs);
    const record = () => emu().state.sandboxes().find((s) => s.sandboxID === made.id)!;
    expect((record().network as { rules?: unknown } | undefined)?.rules).toEqual(rules(REF));
    const news = await checked("Sandbox", { ...inputs, network: { rules: rules("Token ${e2b.secrets.other}") } }, made.outs);
    expect(await runtime.diff("Sandbox", made.id, made.outs, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const since = lastSeq(emu());
    await runtime.update("Sandbox", made.id, made.outs, news);
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([`PUT /sandboxes/${made.id}/network`]);
    expect((record().network as { rules?: unknown } | undefined)?.rules).toEqual(rules("Token ${e2b.secrets.other}"));
    await runtime.remove("Sandbox", made.id, made.outs);
  });
});
