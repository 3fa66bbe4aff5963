/**
 * The two front ends of the one runtime (provider/plugin/README.md), driven with the same inputs and
 * compared: the dynamic provider in @pulumi/pulumi's dynamic-provider host, and the native plugin
 * (bin/pulumi-resource-sandbox), each over gRPC as the engine drives it, each against its own
 * emulator so the same names can be used. Each gets its inputs as the engine sends them: the dynamic
 * one with `__provider` and the class's `__secrets`, the plugin with secrets wrapped (it accepts them).
 * Their answers must agree once what legitimately differs is set aside: IDs, minted tokens and times,
 * the dynamic provider's own fields, and the plugin's secret wrappers (checked on their own).
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import type { ResourceKind } from "../../provider/kinds";
import { startHost, type HostError, type ProviderHost } from "./host";
import { makeProject, REPO, type Project } from "./project";
import { providerTextOf } from "./serialized";

type Obj = Record<string, unknown>;

interface FrontEnd {
  name: "dynamic" | "plugin";
  emu: Emulator;
  host: ProviderHost;
  urn(kind: ResourceKind, name: string): string;
  /** A property bag as the engine sends it to this front end; `secret` names the values marked secret. */
  bag(kind: ResourceKind, props: Obj, secret?: string[]): Obj;
}

let project: Project;
const ends: FrontEnd[] = [];
const text = {} as Record<ResourceKind, string>;
const wrap = (value: unknown) => ({ [specialSigKey]: specialSecretSig, value });

beforeAll(async () => {
  project = makeProject();
  // The plugin's launcher beside the project's fresh build, as the package ships it (bin/ next to dist/).
  const bin = join(project.dir, "node_modules", "pulumi-sandbox", "bin");
  mkdirSync(bin);
  copyFileSync(join(REPO, "bin", "pulumi-resource-sandbox"), join(bin, "pulumi-resource-sandbox"));
  for (const kind of ["Volume", "Sandbox", "Template", "SandboxFleet"] as const) text[kind] = providerTextOf(kind);
  for (const name of ["dynamic", "plugin"] as const) {
    const emu = await createEmulator({ buildDelayMs: 50 });
    const config = { "sandbox:apiKey": emu.apiKey, "sandbox:accessToken": emu.accessToken, "sandbox:apiUrl": emu.apiUrl, "sandbox:sandboxUrl": emu.sandboxUrl };
    if (name === "dynamic") {
      const host = await startHost({ cwd: project.dir, project: "proj" });
      await host.configure(config);
      ends.push({
        name, emu, host,
        urn: (kind, n) => `urn:pulumi:dev::proj::pulumi-nodejs:dynamic/sandbox:${kind}::${n}`,
        bag: (kind, props, secret = []) => ({ ...props, __provider: text[kind], __secrets: secretValues(props, secret) }),
      });
    } else {
      // The plugin's config through the env fallbacks: the Configure path itself is in test/e2e/plugin.test.ts.
      const env = { E2B_API_KEY: emu.apiKey, E2B_ACCESS_TOKEN: emu.accessToken, E2B_API_URL: emu.apiUrl, E2B_SANDBOX_URL: emu.sandboxUrl };
      const host = await startHost({ cwd: project.dir, project: "proj", env, plugin: join(bin, "pulumi-resource-sandbox") });
      await host.configure({});
      ends.push({
        name, emu, host,
        urn: (kind, n) => `urn:pulumi:dev::proj::sandbox:index:${kind}::${n}`,
        bag: (_kind, props, secret = []) => Object.fromEntries(Object.entries(props).map(([k, v]) => [k, secret.includes(k) ? wrap(v) : v])),
      });
    }
  }
}, 120_000);

afterAll(async () => {
  for (const end of ends) {
    await end.host.close();
    await end.emu.close();
  }
  project?.remove();
});

function secretValues(props: Obj, secret: string[]): string[] {
  const strings = (v: unknown): string[] => (typeof v === "string" ? [v] : v && typeof v === "object" ? Object.values(v).flatMap(strings) : []);
  return secret.flatMap((k) => strings(props[k]));
}

/** Values that differ by nature between two services and two URNs, set aside. */
const VOLATILE = new Set([
  ...["id", "token", "startedAt", "endAt", "envdAccessToken", "trafficAccessToken", "volumeID", "volumeId", "sandboxID"],
  ...["templateID", "buildID", "latestBuildID", "createdAt", "updatedAt"],
  // Random per resource (provider/kinds/identity.ts): each front end's check mints its own.
  "__nonce",
]);
const OWN = new Set(["__provider", "__secrets", "__resource"]);

function comparable(value: unknown, key = ""): unknown {
  if (VOLATILE.has(key) && typeof value === "string") return "<volatile>";
  // A Volume's seeded files by path, each with the mtime its service gave it.
  if (key === "contentWritten" && value && typeof value === "object") return Object.fromEntries(Object.keys(value).map((k) => [k, "<volatile>"]));
  if (Array.isArray(value)) return value.map((v) => comparable(v));
  if (value === null || typeof value !== "object") return value;
  const obj = value as Obj;
  if (obj[specialSigKey] === specialSecretSig) return comparable(obj.value, key);
  return Object.fromEntries(Object.entries(obj).filter(([k]) => !OWN.has(k)).map(([k, v]) => [k, comparable(v, k)]));
}

/** Runs `step` on both front ends and expects the same comparable answer; returns both raw answers. */
async function same<T>(step: (end: FrontEnd) => Promise<T>): Promise<[T, T]> {
  const [a, b] = await Promise.all(ends.map(step)) as [T, T];
  expect(comparable(b), "plugin vs dynamic").toEqual(comparable(a));
  return [a, b];
}

/** This front end's half of a pair `same` returned. */
const at = <T>(pair: [T, T], e: FrontEnd): T => pair[ends.indexOf(e)]!;

/** The keys of `props` wrapped secret, but the front ends' own (the plugin's `__secrets`: test/provider/plugin-secrets.test.ts). */
const secretKeysOf = (props: Obj) => Object.keys(props).filter((k) => !OWN.has(k) && (props[k] as Obj | null)?.[specialSigKey] === specialSecretSig).sort();

describe("Volume: the same inputs give the same answers", () => {
  const props = { name: "team-data" };
  test("check, create, diff, read, delete", async () => {
    const urn = (e: FrontEnd) => e.urn("Volume", "data");
    const checked = await same((e) => e.host.check(urn(e), {}, e.bag("Volume", props)));
    const created = await same((e) => e.host.create(urn(e), at(checked, e).inputs));
    expect(secretKeysOf(created[1].properties)).toEqual(["token"]);
    const renamed = await same((e) => e.host.check(urn(e), at(checked, e).inputs, e.bag("Volume", { name: "other" })));
    const [diff] = await same((e) => e.host.diff(at(created, e).id, urn(e), at(created, e).properties, at(renamed, e).inputs));
    expect(diff).toEqual({ changes: "some", replaces: ["name"], deleteBeforeReplace: false });
    await same((e) => e.host.read(at(created, e).id, urn(e), at(created, e).properties));
    await same((e) => e.host.delete(at(created, e).id, urn(e), at(created, e).properties));
    for (const e of ends) expect(e.emu.state.volumes(), e.name).toEqual([]);
  });

  test("a bad input fails the same way", async () => {
    const [bad] = await same((e) => e.host.check(e.urn("Volume", "data"), {}, e.bag("Volume", { name: "a b" })));
    expect(bad.failures).toEqual([{ property: "", reason: "name: may contain only letters, digits, '_' and '-' (pattern ^[a-zA-Z0-9_-]+$)" }]);
  });

  test("content: a directory relative to the project seeds the volume, and an edit is an update in place", async () => {
    mkdirSync(join(project.dir, "seed"), { recursive: true });
    writeFileSync(join(project.dir, "seed", "hello.txt"), "hello\n");
    const urn = (e: FrontEnd) => e.urn("Volume", "seeded");
    const content = { path: "seed", target: "/srv" };
    const checked = await same((e) => e.host.check(urn(e), {}, e.bag("Volume", { name: "seeded", content })));
    const created = await same((e) => e.host.create(urn(e), at(checked, e).inputs));
    for (const e of ends) expect(readFileSync(join(e.emu.state.volumes()[0]!.hostDir, "srv/hello.txt"), "utf8"), e.name).toBe("hello\n");
    writeFileSync(join(project.dir, "seed", "hello.txt"), "hello again\n");
    const edited = await same((e) => e.host.check(urn(e), at(checked, e).inputs, e.bag("Volume", { name: "seeded", content })));
    const [diff] = await same((e) => e.host.diff(at(created, e).id, urn(e), at(created, e).properties, at(edited, e).inputs));
    expect(diff).toEqual({ changes: "some", replaces: [], deleteBeforeReplace: false });
    await same((e) => e.host.update(at(created, e).id, urn(e), at(created, e).properties, at(edited, e).inputs));
    for (const e of ends) expect(readFileSync(join(e.emu.state.volumes()[0]!.hostDir, "srv/hello.txt"), "utf8"), e.name).toBe("hello again\n");
    await same((e) => e.host.delete(at(created, e).id, urn(e), at(created, e).properties));
  });
});

describe("Sandbox: the same inputs give the same answers", () => {
  const props = { templateID: "base", timeoutSeconds: 600, metadata: { team: "a" }, envVars: { TOKEN: "front-end-secret-1f2e" } };
  test("check, create, diff and update in place, read, delete", async () => {
    const urn = (e: FrontEnd) => e.urn("Sandbox", "box");
    const checked = await same((e) => e.host.check(urn(e), {}, e.bag("Sandbox", props, ["envVars"])));
    expect(secretKeysOf(checked[1].inputs)).toEqual(["envVars"]);
    const created = await same((e) => e.host.create(urn(e), at(checked, e).inputs));
    // Every sandbox of POST /v2/sandboxes is secured: its in-sandbox token is a secret output.
    expect(secretKeysOf(created[1].properties)).toEqual(["envVars", "envdAccessToken", "provisionResults"]);
    const longer = await same((e) => e.host.check(urn(e), at(checked, e).inputs, e.bag("Sandbox", { ...props, timeoutSeconds: 900 }, ["envVars"])));
    const [diff] = await same((e) => e.host.diff(at(created, e).id, urn(e), at(created, e).properties, at(longer, e).inputs));
    expect(diff).toEqual({ changes: "some", replaces: [], deleteBeforeReplace: false });
    const updated = await same((e) => e.host.update(at(created, e).id, urn(e), at(created, e).properties, at(longer, e).inputs));
    await same((e) => e.host.read(at(created, e).id, urn(e), at(updated, e).properties));
    await same((e) => e.host.delete(at(created, e).id, urn(e), at(updated, e).properties));
    for (const e of ends) expect(e.emu.state.sandboxes(), e.name).toEqual([]);
  });
});

/** Whether `value` is wrapped as the engine's secret. */
const isSecret = (value: unknown) => (value as Obj | null)?.[specialSigKey] === specialSecretSig;

describe("SandboxFleet: the same inputs give the same answers, and both name the member that changes", () => {
  const sandbox = { templateID: "base", timeoutSeconds: 600, envVars: { TEAM: "core" } };
  const props = { sandbox, members: { ada: {}, grace: { envVars: { ROLE: "lead" } } } };
  test("check, create, diff by member path, update of that member alone, read, delete", async () => {
    const urn = (e: FrontEnd) => e.urn("SandboxFleet", "pool");
    const checked = await same((e) => e.host.check(urn(e), {}, e.bag("SandboxFleet", props)));
    for (const [i, e] of ends.entries()) {
      // Secret value by value (the spec's secretWithin), so the members' keys stay readable.
      const inputs = checked[i]!.inputs as { sandbox: Obj; members: Record<string, Obj> };
      expect(secretKeysOf(inputs), e.name).toEqual([]);
      expect([isSecret(inputs.sandbox.envVars), isSecret(inputs.members.grace!.envVars), isSecret(inputs.sandbox.templateID)], e.name).toEqual([true, true, false]);
    }
    const created = await same((e) => e.host.create(urn(e), at(checked, e).inputs));
    for (const [i, e] of ends.entries()) {
      const ada = (created[i]!.properties.sandboxes as Record<string, Obj>).ada!;
      expect([isSecret(ada.envdAccessToken), isSecret(ada.sandboxID)], e.name).toEqual([true, false]);
    }
    const edited = await same((e) => e.host.check(urn(e), at(checked, e).inputs, e.bag("SandboxFleet", { ...props, members: { ...props.members, ada: { envVars: { X: "1" } } } })));
    const [diff] = await same((e) => e.host.diff(at(created, e).id, urn(e), at(created, e).properties, at(edited, e).inputs));
    expect(diff).toEqual({
      changes: "some", replaces: [], deleteBeforeReplace: false, diffs: ["members"],
      detailedDiff: { 'members["ada"].envVars': { kind: "UPDATE", inputDiff: true } },
    });
    const updated = await same((e) => e.host.update(at(created, e).id, urn(e), at(created, e).properties, at(edited, e).inputs));
    const idsOf = (p: Obj) => Object.fromEntries(Object.entries(p.sandboxes as Record<string, Obj>).map(([k, v]) => [k, v.sandboxID]));
    for (const [i, e] of ends.entries()) {
      const [before, after] = [idsOf(created[i]!.properties), idsOf(updated[i]!.properties)];
      expect([after.grace === before.grace, after.ada === before.ada], e.name).toEqual([true, false]);
    }
    await same((e) => e.host.read(at(created, e).id, urn(e), at(updated, e).properties));
    await same((e) => e.host.delete(at(created, e).id, urn(e), at(updated, e).properties));
    for (const e of ends) expect(e.emu.state.sandboxes(), e.name).toEqual([]);
  });
});

describe("Template: the same inputs give the same answers", () => {
  const props = { alias: "front-end-tpl", dockerfile: "FROM ubuntu:22.04\nRUN echo ready\n" };
  test("check, create (a build), diff and update in place, read, delete", async () => {
    const urn = (e: FrontEnd) => e.urn("Template", "tpl");
    const checked = await same((e) => e.host.check(urn(e), {}, e.bag("Template", props)));
    expect(checked[1].failures).toEqual([]);
    const created = await same((e) => e.host.create(urn(e), at(checked, e).inputs));
    const published = await same((e) => e.host.check(urn(e), at(checked, e).inputs, e.bag("Template", { ...props, public: true })));
    const [diff] = await same((e) => e.host.diff(at(created, e).id, urn(e), at(created, e).properties, at(published, e).inputs));
    expect(diff).toEqual({ changes: "some", replaces: [], deleteBeforeReplace: false });
    const updated = await same((e) => e.host.update(at(created, e).id, urn(e), at(created, e).properties, at(published, e).inputs));
    expect(updated[1].properties.public).toBe(true);
    await same((e) => e.host.read(at(created, e).id, urn(e), at(updated, e).properties));
    await same((e) => e.host.delete(at(created, e).id, urn(e), at(updated, e).properties));
  });
});

/**
 * What each front end hides from logs and stored output: what the program marked secret, and nothing
 * else. The dynamic provider's class collects those values before it wraps the spec's secret inputs;
 * the plugin gets `envVars` and `provision` as the program wrote them (the schema marks no input
 * secret, so a generated SDK does not wrap them whole), wraps them itself in its check's answer, and
 * carries the program's secrets on as `__secrets` (provider/plugin/adapter.ts).
 */
describe("Sandbox provisioning: both front ends hide what the program marked secret, and only that", () => {
  const token = "front-end-env-token-7c4b";
  const props = { templateID: "base", timeoutSeconds: 600, envVars: { TOKEN: token }, provision: { commands: [{ command: 'echo "front-ends-agree $TOKEN"' }] } };
  test("the command shows in both front ends' results, and the output with the secret env var [redacted]", async () => {
    const results = await Promise.all(ends.map(async (e) => {
      const urn = e.urn("Sandbox", "prov");
      const { inputs } = await e.host.check(urn, {}, e.bag("Sandbox", props, ["envVars"]));
      const { id, properties } = await e.host.create(urn, inputs);
      await e.host.delete(id, urn, properties);
      return comparable(properties.provisionResults) as { command: string; stdoutTail: string }[];
    }));
    expect(results.map((r) => r[0]?.command)).toEqual(['echo "front-ends-agree $TOKEN"', 'echo "front-ends-agree $TOKEN"']);
    expect(results.map((r) => r[0]?.stdoutTail)).toEqual(["front-ends-agree [redacted]\n", "front-ends-agree [redacted]\n"]);
    for (const e of ends) expect(e.host.stderr(), e.name).not.toContain(token);
  });
});

/**
 * A Dockerfile built around a secret (a private index token): what `check` derives from it and what a
 * build records are secret in every answer of both front ends, and the build's log lines (stderr here:
 * the engine address given is not served) show no line of it.
 */
describe("Template with a secret Dockerfile: derived results are secret, and no log line shows it", () => {
  const token = "front-end-index-token-3e9a";
  // `|| true`: the emulator's build runs it, and pypi.example does not answer.
  const installLine = `RUN pip install --index-url https://u:${token}@pypi.example/simple app || true`;

  test("check and create: buildSteps is secret on both front ends, and the build log hides each line", async () => {
    const dockerfile = `FROM ubuntu:22.04\n${installLine}\nRUN echo ${token}\n`;
    for (const e of ends) {
      const urn = e.urn("Template", "private");
      const { inputs, failures } = await e.host.check(urn, {}, e.bag("Template", { alias: "front-end-private", dockerfile }, ["dockerfile"]));
      expect(failures, e.name).toEqual([]);
      // Both wrap `dockerfile` too: it holds a program secret (provider/runtime/secret-net.ts), though
      // the engine would mark the dynamic provider's by name.
      expect(secretKeysOf(inputs), e.name).toEqual(["buildSteps", "dockerfile"]);
      const { id, properties } = await e.host.create(urn, inputs);
      expect(secretKeysOf(properties), e.name).toEqual(["buildSteps", "dockerfile"]);
      expect(comparable(properties.buildSteps), e.name).toContain(installLine);
      await e.host.delete(id, urn, properties);
      // The service's steps: the base image's (USER, WORKDIR) around the Dockerfile's own.
      // The builder's line of a secret step, without the layer's hash (it covers the step's words).
      expect(e.host.stderr(), e.name).toMatch(/\[Template \w+\] step \d+: \[builder \d+\/\d+\] \[redacted\]\n/);
      expect(e.host.stderr(), e.name).not.toMatch(/\[redacted\] \[[0-9a-f]{64}\]/);
      expect(e.host.stderr(), e.name).not.toContain(token);
    }
  });

  test("a failed build: the state it records keeps buildSteps and lastBuildError secret; the error quotes no line", async () => {
    const dockerfile = `FROM ubuntu:22.04\nRUN echo ${token}\nRUN exit 3\n`;
    for (const e of ends) {
      const urn = e.urn("Template", "failing");
      const { inputs } = await e.host.check(urn, {}, e.bag("Template", { alias: "front-end-failing", dockerfile }, ["dockerfile"]));
      const err = (await e.host.create(urn, inputs).then(() => undefined, (x: unknown) => x)) as HostError;
      expect(err?.initFailure, e.name).toBeDefined();
      const recorded = err.initFailure!.properties;
      expect(secretKeysOf(recorded), e.name).toEqual(expect.arrayContaining(["buildSteps", "lastBuildError"]));
      expect(err.message, e.name).toMatch(/\nStep \d+ is: \[redacted\]$/);
      expect(`${err.message}${err.initFailure!.reasons.join("")}`, e.name).not.toContain("RUN exit 3");
      await e.host.delete(err.initFailure!.id, urn, recorded);
    }
  });
});
