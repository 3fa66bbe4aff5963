import { describe, expect, test } from "vitest";
import { diffInputs } from "../../provider/diff";
import { UNKNOWN } from "../../provider/spec";
import { sandboxSpec } from "../../provider/kinds/sandbox/spec";
import { templateSpec } from "../../provider/kinds/template/spec";
import { volumeSpec } from "../../provider/kinds/volume/spec";

const tpl = { dockerfile: "FROM ubuntu\n", public: false, buildTimeoutSeconds: 1200, alias: "a-1", __generation: 0 };

describe("diff", () => {
  test("no change: nothing reaches the service", () => {
    const outputs = { ...tpl, templateID: "t1", buildID: "b1", cpuCount: 2, memoryMB: 1024, __provider: "old text" };
    expect(diffInputs(templateSpec, outputs, { ...tpl, __provider: "new text" })).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  });

  test("public alone is an in-place update", () => {
    expect(diffInputs(templateSpec, tpl, { ...tpl, public: true })).toMatchObject({ changes: true, replaces: [] });
  });

  test("a local-only input (build deadline) is no change", () => {
    expect(diffInputs(templateSpec, tpl, { ...tpl, buildTimeoutSeconds: 60 }).changes).toBe(false);
  });

  test("a service default kept in the output is no change when the program leaves it out", () => {
    expect(diffInputs(templateSpec, { ...tpl, cpuCount: 2 }, tpl).changes).toBe(false);
    expect(diffInputs(templateSpec, { ...tpl, cpuCount: 2 }, { ...tpl, cpuCount: 4 }).changes).toBe(true);
  });

  test("teamID replaces a template", () => {
    expect(diffInputs(templateSpec, tpl, { ...tpl, teamID: "team-b" }).replaces).toEqual(["teamID"]);
  });

  test("sandbox: timeout and provision update in place; triggers and templateID replace", () => {
    const sb = { templateID: "base", timeout: 60, provision: { commands: [{ command: "true", timeoutSeconds: 300 }], onFailure: "keep", triggers: { v: 1 } } };
    expect(diffInputs(sandboxSpec, sb, { ...sb, timeout: 120 })).toMatchObject({ changes: true, replaces: [] });
    const rerun = { ...sb, provision: { ...sb.provision, commands: [{ command: "echo 2", timeoutSeconds: 300 }] } };
    expect(diffInputs(sandboxSpec, sb, rerun)).toMatchObject({ changes: true, replaces: [] });
    expect(diffInputs(sandboxSpec, sb, { ...sb, provision: { ...sb.provision, triggers: { v: 2 } } }).replaces).toEqual(["provision.triggers"]);
    expect(diffInputs(sandboxSpec, sb, { ...sb, templateID: "other" }).replaces).toEqual(["templateID"]);
  });

  test("an unknown value at preview counts as a change, and a replacement where it forces one", () => {
    const sb = { templateID: "base" };
    expect(diffInputs(sandboxSpec, sb, { templateID: UNKNOWN })).toMatchObject({ changes: true, replaces: ["templateID"] });
  });

  test("key order and absent-vs-undefined do not count", () => {
    const a = { templateID: "base", metadata: { a: "1", b: "2" } };
    expect(diffInputs(sandboxSpec, a, { metadata: { b: "2", a: "1" }, templateID: "base", envVars: undefined }).changes).toBe(false);
  });

  test("a replacement that keeps a user-chosen unique name deletes the old resource first", () => {
    // The new template could not take the alias while the old one holds it.
    expect(diffInputs(templateSpec, tpl, { ...tpl, teamID: "team-b" })).toMatchObject({ replaces: ["teamID"], deleteBeforeReplace: true });
    // An auto-name is minted anew for the replacement: both can exist at once, so the new one comes first.
    const auto = { ...tpl, __auto: ["alias"] };
    expect(diffInputs(templateSpec, auto, { ...auto, alias: "a-2", teamID: "team-b" })).toMatchObject({ deleteBeforeReplace: false });
    expect(diffInputs(volumeSpec, { name: "data" }, { name: "data-2" })).toMatchObject({ replaces: ["name"], deleteBeforeReplace: false });
  });

  test("provision: a change of logging or onFailure alone re-runs nothing", () => {
    const sb = { templateID: "base", provision: { commands: [{ command: "true", timeoutSeconds: 300 }], onFailure: "keep", logging: "both" } };
    expect(diffInputs(sandboxSpec, sb, { ...sb, provision: { ...sb.provision, logging: "none", onFailure: "delete" } }).changes).toBe(false);
    // State written before `logging` existed has none: the default is no change either.
    const { logging: _, ...old } = sb.provision;
    expect(diffInputs(sandboxSpec, { ...sb, provision: old }, sb).changes).toBe(false);
  });

  test("removing timeout keeps the sandbox's deadline: no change", () => {
    expect(diffInputs(sandboxSpec, { templateID: "base", timeout: 600 }, { templateID: "base" }).changes).toBe(false);
  });

  test("network: egress rules and internet access change in place; ingress replaces", () => {
    const sb = { templateID: "base", secure: true, network: { allowPublicTraffic: false, denyOut: ["10.0.0.0/8"] } };
    expect(diffInputs(sandboxSpec, sb, { ...sb, network: { ...sb.network, denyOut: ["0.0.0.0/0"] } })).toMatchObject({ changes: true, replaces: [] });
    expect(diffInputs(sandboxSpec, sb, { ...sb, allowInternetAccess: false })).toMatchObject({ changes: true, replaces: [] });
    expect(diffInputs(sandboxSpec, sb, { ...sb, network: { ...sb.network, allowPublicTraffic: true } }).replaces).toEqual(["network.allowPublicTraffic"]);
    expect(diffInputs(sandboxSpec, sb, { ...sb, network: { ...sb.network, maskRequestHost: "x.test" } }).replaces).toEqual(["network.maskRequestHost"]);
  });

  test("the newest SDKs' inputs: dnsServers, rules and pauseMode change in place; httpsPorts and lifecycle replace", () => {
    const sb = { templateID: "base", state: "paused", pauseMode: "full", network: { httpsPorts: [8443], dnsServers: ["1.1.1.1"] } };
    expect(diffInputs(sandboxSpec, sb, { ...sb, network: { ...sb.network, dnsServers: ["9.9.9.9"] } })).toMatchObject({ changes: true, replaces: [] });
    expect(diffInputs(sandboxSpec, sb, { ...sb, network: { ...sb.network, rules: { "*.example.com": [] } } })).toMatchObject({ changes: true, replaces: [] });
    expect(diffInputs(sandboxSpec, sb, { ...sb, pauseMode: "filesystem" })).toMatchObject({ changes: true, replaces: [] });
    expect(diffInputs(sandboxSpec, sb, { ...sb, network: { ...sb.network, httpsPorts: [8443, 9443] } }).replaces).toEqual(["network.httpsPorts"]);
    expect(diffInputs(sandboxSpec, sb, { ...sb, lifecycle: { onTimeout: { action: "pause", mode: "filesystem" } } }).replaces).toEqual(["lifecycle"]);
  });
});
