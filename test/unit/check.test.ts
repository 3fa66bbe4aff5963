import { describe, expect, test } from "vitest";
import { checkInputs } from "../../provider/check";
import { UNKNOWN } from "../../provider/spec";
import { sandboxSpec } from "../../provider/kinds/sandbox/spec";
import { snapshotSpec } from "../../provider/kinds/snapshot/spec";
import { templateSpec } from "../../provider/kinds/template/spec";
import { volumeSpec } from "../../provider/kinds/volume/spec";

const key = "proj/dev/my-box";
const reasons = (o: ReturnType<typeof checkInputs>) => (o.failures ?? []).map((f) => f.reason);

describe("check", () => {
  test("applies defaults and the provider's own inputs", () => {
    const out = checkInputs(templateSpec, {}, { dockerfile: "FROM ubuntu:22.04\n", __resource: key });
    expect(out.failures).toBeUndefined();
    expect(out.inputs).toMatchObject({ public: false, buildTimeoutSeconds: 1200, __resource: key, __generation: 0, __auto: ["alias"] });
    expect(out.inputs?.alias).toMatch(/^my-box-[0-9a-f]{8}$/);
  });

  test("an auto-name is stable across runs and changes with a replacement", () => {
    const first = checkInputs(volumeSpec, {}, { __resource: key }).inputs!;
    const again = checkInputs(volumeSpec, {}, { __resource: key }).inputs!;
    expect(again.name).toBe(first.name);
    const kept = checkInputs(volumeSpec, first, { __resource: key }).inputs!;
    expect(kept).toMatchObject({ name: first.name, __generation: 0 });
    const renamed = checkInputs(volumeSpec, first, { name: "data", __resource: key }).inputs!;
    expect(renamed).toMatchObject({ name: "data", __generation: 1 });
  });

  test("a rename (stack, project, aliases) keeps the key, the auto-name and the generation", () => {
    const urn = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/sandbox:Volume::data";
    const first = checkInputs(volumeSpec, {}, { __resource: urn }).inputs!;
    expect(first.name).toMatch(/^data-[0-9a-f]{8}$/);
    const renamed = "urn:pulumi:prod::proj2::my:Comp$pulumi-nodejs:dynamic/sandbox:Volume::data2";
    const after = checkInputs(volumeSpec, first, { __resource: renamed }).inputs!;
    expect(after).toMatchObject({ name: first.name, __resource: urn, __generation: 0, __auto: ["name"] });
    // A real replacement still mints the next name, from the kept key.
    const tpl = checkInputs(templateSpec, {}, { dockerfile: "FROM a", __resource: urn }).inputs!;
    const moved = checkInputs(templateSpec, tpl, { dockerfile: "FROM a", teamID: "t2", __resource: renamed }).inputs!;
    expect(moved).toMatchObject({ __resource: urn, __generation: 1 });
    expect(moved.alias).not.toBe(tpl.alias);
  });

  test("same-named children of two components get different auto-names", () => {
    const a = checkInputs(volumeSpec, {}, { __resource: "urn:pulumi:dev::proj::x:A$pulumi-nodejs:dynamic/sandbox:Volume::data" }).inputs!;
    const b = checkInputs(volumeSpec, {}, { __resource: "urn:pulumi:dev::proj::x:B$pulumi-nodejs:dynamic/sandbox:Volume::data" }).inputs!;
    expect(a.name).toMatch(/^data-/);
    expect(b.name).toMatch(/^data-/);
    expect(a.name).not.toBe(b.name);
  });

  test("the plaintext of the program's secret values passes through to the handlers", () => {
    const out = checkInputs(sandboxSpec, {}, { templateID: "base", __resource: key, __secrets: ["s3cr3t"] }).inputs!;
    expect(out.__secrets).toEqual(["s3cr3t"]);
  });

  test("a deprecated name (timeout) is taken as its current one (timeoutSeconds), and a failure names it as written", () => {
    expect(checkInputs(sandboxSpec, {}, { templateID: "base", timeout: 60, __resource: key }).inputs).toMatchObject({ timeoutSeconds: 60 });
    expect(checkInputs(sandboxSpec, {}, { templateID: "base", timeout: 60, __resource: key }).inputs).not.toHaveProperty("timeout");
    expect(reasons(checkInputs(sandboxSpec, {}, { templateID: "base", timeout: 0 }))).toEqual(["timeout: must be greater than 0 (the service refuses 0)"]);
    expect(reasons(checkInputs(sandboxSpec, {}, { templateID: "base", timeoutSeconds: 0 }))).toEqual(["timeoutSeconds: must be greater than 0 (the service refuses 0)"]);
    expect(reasons(checkInputs(sandboxSpec, {}, { templateID: "base", timeout: 60, timeoutSeconds: 60 }))).toEqual([
      "timeout: is the deprecated name of timeoutSeconds; give only timeoutSeconds",
    ]);
  });

  test("each failure names the field path and the rule", () => {
    const out = checkInputs(sandboxSpec, {}, {
      templateID: "base",
      timeout: 0,
      volumeMounts: [{ name: "v", path: "/data" }, { name: "bad name", path: "data" }],
    });
    expect(reasons(out)).toEqual([
      "timeout: must be greater than 0 (the service refuses 0)",
      "volumeMounts[1].name: must be a volume name (pattern ^[a-zA-Z0-9_-]+$)",
      "volumeMounts[1].path: must be an absolute path (start with /)",
    ]);
    // No property is named to the engine: it would print the input's value, which may be a secret.
    expect(out.failures?.map((f) => f.property)).toEqual(["", "", ""]);
  });

  test("a missing required field and an unknown field", () => {
    expect(reasons(checkInputs(templateSpec, {}, {}))).toContain("dockerfile: is required");
    const out = checkInputs(sandboxSpec, {}, { templateId: "base" });
    expect(reasons(out).find((r) => r.startsWith("templateId"))).toMatch(/^templateId: unknown property of Sandbox; valid properties are: templateID, forkFrom, timeoutSeconds/);
  });

  test("a cross-field rule runs on known values", () => {
    const out = checkInputs(sandboxSpec, {}, { templateID: "base", network: { allowPublicTraffic: false } });
    expect(reasons(out)).toEqual(["network.allowPublicTraffic: false requires secure: true (the service refuses it otherwise)"]);
  });

  test("unknown values at preview skip only their own field", () => {
    const out = checkInputs(sandboxSpec, {}, { templateID: UNKNOWN, timeout: 30, metadata: { team: UNKNOWN } });
    expect(out.failures).toBeUndefined();
    expect(out.inputs).toMatchObject({ templateID: UNKNOWN, timeoutSeconds: 30, metadata: { team: UNKNOWN } });
    const bad = checkInputs(sandboxSpec, {}, { templateID: UNKNOWN, timeout: -5 });
    expect(reasons(bad)).toEqual(["timeout: must be greater than 0 (the service refuses 0)"]);
  });

  test("a map key that breaks its rule gets that rule's message", () => {
    expect(reasons(checkInputs(sandboxSpec, {}, { templateID: "base", envVars: { "1BAD": "x" } }))).toEqual([
      "envVars.1BAD: environment variable names must match ^[A-Za-z_][A-Za-z0-9_]*$",
    ]);
  });

  // The inputs of the newest SDKs' fields (docs/service.md#sandbox-fields-of-the-newest-sdks): each bad value, its exact failures.
  const PORT_RULE = "must be a port number from 1 to 65535";
  const ENVD = "must not be 49983: it is envd's own port, which the service's proxy always reaches itself (the service refuses it)";
  const IPV4_RULE = "must be an IPv4 address (the service takes no IPv6 address, CIDR or name)";
  const RULE_KEY = "keys must be domain names or a leading wildcard of one (*.example.com), not a bare * or an IP address";
  const rule = [{ transform: { headers: { "X-Key": "v" } } }];
  const NEWEST: [what: string, args: Record<string, unknown>, failures: string[]][] = [
    ["httpsPorts naming envd's port", { network: { httpsPorts: [443, 49983] } }, [`network.httpsPorts[1]: ${ENVD}`]],
    ["httpsPorts 0 and 65536", { network: { httpsPorts: [0, 65_536] } }, [`network.httpsPorts[0]: ${PORT_RULE}`, `network.httpsPorts[1]: ${PORT_RULE}`]],
    ["httpsPorts 80.5 and \"443\"", { network: { httpsPorts: [80.5, "443"] } }, [`network.httpsPorts[0]: ${PORT_RULE}`, `network.httpsPorts[1]: ${PORT_RULE}`]],
    ["httpsPorts not a list", { network: { httpsPorts: 443 } }, ["network.httpsPorts: must be a list of port numbers"]],
    ["dnsServers: IPv6, a CIDR, a name", { network: { dnsServers: ["2001:4860:4860::8888", "1.1.1.1/32", "dns.google", "8.8.8.8"] } }, [
      `network.dnsServers[0]: ${IPV4_RULE}`, `network.dnsServers[1]: ${IPV4_RULE}`, `network.dnsServers[2]: ${IPV4_RULE}`,
    ]],
    ["dnsServers 256.1.1.1", { network: { dnsServers: ["256.1.1.1"] } }, [`network.dnsServers[0]: ${IPV4_RULE}`]],
    ["a bare * rule domain", { network: { rules: { "*": rule } } }, [`network.rules.*: ${RULE_KEY}`]],
    ["a * inside a rule domain", { network: { rules: { "a.*.com": rule } } }, [`network.rules.a.*.com: ${RULE_KEY}`]],
    ["*.*. in a rule domain", { network: { rules: { "*.*.example.com": rule } } }, [`network.rules.*.*.example.com: ${RULE_KEY}`]],
    ["two rule domains equal in lower case", { network: { rules: { "*.example.com": rule, "*.Example.COM": rule } } }, [
      'network.rules: "*.Example.COM" repeats another key: the service compares domains in lower case',
    ]],
    ["pauseMode without state", { pauseMode: "filesystem" }, ['pauseMode: only applies with state: "paused" (it says what that pause keeps); set state: "paused" or leave it out']],
    ["pauseMode with state running", { state: "running", pauseMode: "full" }, ['pauseMode: only applies with state: "paused" (it says what that pause keeps); set state: "paused" or leave it out']],
    ["pauseMode memory", { state: "paused", pauseMode: "memory" }, ['pauseMode: must be "full" or "filesystem"']],
    ["lifecycle without onTimeout", { lifecycle: {} }, ["lifecycle.onTimeout: is required"]],
    ["lifecycle onTimeout as a string", { lifecycle: { onTimeout: "pause" } }, ["lifecycle.onTimeout: must be an object {action, mode}"]],
    ["lifecycle as a list", { lifecycle: [] }, ["lifecycle: must be an object {onTimeout}"]],
    ["lifecycle action stop", { lifecycle: { onTimeout: { action: "stop" } } }, ['lifecycle.onTimeout.action: must be "pause" or "kill"']],
    ["lifecycle keepMemory (the JS SDK's old name)", { lifecycle: { onTimeout: { action: "pause", keepMemory: false } } }, ['lifecycle.onTimeout: unknown property "keepMemory"']],
    ["lifecycle mode with action kill", { lifecycle: { onTimeout: { action: "kill", mode: "full" } } }, [
      'lifecycle.onTimeout.mode: only applies with action "pause" (it says what the timeout\'s pause keeps); leave it out',
    ]],
    ["lifecycle kill contradicting autoPause true", { autoPause: true, lifecycle: { onTimeout: { action: "kill" } } }, [
      'lifecycle.onTimeout.action: "kill" contradicts autoPause: true (both say what happens at the timeout); give one of them, or make them agree',
    ]],
    ["lifecycle pause contradicting autoPause false", { autoPause: false, lifecycle: { onTimeout: { action: "pause" } } }, [
      'lifecycle.onTimeout.action: "pause" contradicts autoPause: false (both say what happens at the timeout); give one of them, or make them agree',
    ]],
    ["lifecycle filesystem with autoResume", { autoResume: { enabled: true }, lifecycle: { onTimeout: { action: "pause", mode: "filesystem" } } }, [
      'lifecycle.onTimeout.mode: "filesystem" cannot be combined with autoResume.enabled: true: a files-only pause boots cold and is resumed only explicitly (the service refuses it)',
    ]],
    ["lifecycle with forkFrom", { templateID: undefined, forkFrom: "iparent", lifecycle: { onTimeout: { action: "pause" } } }, [
      "lifecycle: not allowed with forkFrom: a fork takes its parent's (the fork call sets only the timeout); leave it out",
    ]],
  ];

  test.each(NEWEST)("the newest SDKs' inputs: %s", (_what, args, failures) => {
    expect(reasons(checkInputs(sandboxSpec, {}, { templateID: "base", ...args }))).toEqual(failures);
  });

  test("the newest SDKs' inputs: good values pass, and an unknown state lets pauseMode through at preview", () => {
    const good = {
      templateID: "base", autoPause: true, autoResume: { enabled: false }, state: "paused", pauseMode: "filesystem",
      lifecycle: { onTimeout: { action: "pause", mode: "filesystem" } },
      network: { httpsPorts: [443, 8443, 65_535, 1], dnsServers: ["1.1.1.1", "8.8.8.8"], rules: { "*.example.com": rule, "api.example.com": rule, "*.com": rule } },
    };
    expect(checkInputs(sandboxSpec, {}, good).failures).toBeUndefined();
    expect(checkInputs(sandboxSpec, {}, { templateID: "base", network: { dnsServers: [] } }).failures).toBeUndefined();
    expect(checkInputs(sandboxSpec, {}, { templateID: "base", lifecycle: { onTimeout: { action: "kill" } } }).failures).toBeUndefined();
    expect(checkInputs(sandboxSpec, {}, { templateID: "base", state: UNKNOWN, pauseMode: "full" }).failures).toBeUndefined();
  });

  test("a Snapshot's mode is full or filesystem", () => {
    expect(reasons(checkInputs(snapshotSpec, {}, { sandboxID: "i1", mode: "memory" }))).toEqual(['mode: must be "full" or "filesystem"']);
    expect(checkInputs(snapshotSpec, {}, { sandboxID: "i1", mode: "filesystem" }).inputs).toMatchObject({ mode: "filesystem" });
  });

  test("a Dockerfile without FROM is refused before any build", () => {
    expect(reasons(checkInputs(templateSpec, {}, { dockerfile: "RUN echo hi" }))).toEqual([
      "dockerfile: must contain a FROM instruction (the base image)",
    ]);
  });
});
