/**
 * The lookups of one sandbox, one volume, an alias, the team's metrics and many sandboxes' metrics,
 * each through both front ends against one emulator: `pulumi-sandbox/lookups` in this process, and the
 * native plugin's invoke over gRPC as the engine calls it (the Python, Go and YAML SDKs call that). Both
 * must give what the service holds, the same, with the same fields secret, and fail the same way.
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as lookups from "../../provider/lookups";
import { LOOKUPS, type LookupName } from "../../provider/lookup-shapes";
import { emulatorForFile, rest } from "./harness";
import { startHost, type ProviderHost } from "./host";
import { makeProject, REPO, type Project } from "./project";

type Obj = Record<string, unknown>;
const emu = emulatorForFile();
const options = () => ({ apiUrl: emu().apiUrl, apiKey: emu().apiKey, accessToken: emu().accessToken });
let project: Project;
let plugin: ProviderHost;

beforeAll(async () => {
  project = makeProject();
  // The plugin's launcher beside the project's fresh build, as the package ships it (bin/ next to dist/).
  const bin = join(project.dir, "node_modules", "pulumi-sandbox", "bin");
  mkdirSync(bin);
  copyFileSync(join(REPO, "bin", "pulumi-resource-sandbox"), join(bin, "pulumi-resource-sandbox"));
  // The plugin with the emulator's credentials through the env fallbacks, access token included.
  const env = { E2B_API_KEY: emu().apiKey, E2B_ACCESS_TOKEN: emu().accessToken, E2B_API_URL: emu().apiUrl, E2B_SANDBOX_URL: emu().sandboxUrl };
  plugin = await startHost({ cwd: project.dir, project: "proj", env, plugin: join(bin, "pulumi-resource-sandbox") });
  await plugin.configure({});
}, 120_000);

afterAll(async () => {
  await plugin?.close();
  project?.remove();
});

/** An answer with every secret unwrapped, and the paths of the values that were secret. */
async function plain(value: unknown, path = ""): Promise<{ value: unknown; secrets: string[] }> {
  if (pulumi.Output.isInstance(value)) {
    const inner = await plain(await (value as unknown as { promise(): Promise<unknown> }).promise(), path);
    const secret = await (value as unknown as { isSecret: Promise<boolean> }).isSecret;
    return { value: inner.value, secrets: secret ? [path, ...inner.secrets] : inner.secrets };
  }
  if (Array.isArray(value)) {
    const parts = await Promise.all(value.map((v, i) => plain(v, `${path}[${i}]`)));
    return { value: parts.map((p) => p.value), secrets: parts.flatMap((p) => p.secrets) };
  }
  if (value === null || typeof value !== "object") return { value, secrets: [] };
  const obj = value as Obj;
  if (obj[specialSigKey] === specialSecretSig) {
    const inner = await plain(obj.value, path);
    return { value: inner.value, secrets: [path, ...inner.secrets] };
  }
  const parts = await Promise.all(Object.entries(obj).map(async ([k, v]) => [k, await plain(v, path ? `${path}.${k}` : k)] as const));
  return { value: Object.fromEntries(parts.map(([k, p]) => [k, p.value])), secrets: parts.flatMap(([, p]) => p.secrets) };
}

/** The lookup through both front ends: the TypeScript function's answer and the invoke's (its list field's, for a list). */
async function both(name: LookupName, args: Obj): Promise<{ ts: { value: unknown; secrets: string[] }; invoke: { value: unknown; secrets: string[] } }> {
  const fn = lookups[name] as (a: Obj, o: Obj) => Promise<unknown>;
  const ts = await plain(await fn(args, options()));
  const { outputs, failures } = await plugin.invoke(`sandbox:index:${name}`, args);
  expect(failures).toEqual([]);
  const field = (LOOKUPS[name] as { list?: string }).list;
  return { ts, invoke: await plain(field ? outputs[field] : outputs) };
}

/** The failure of the lookup through both front ends: the function's error, and the invoke's failures or error. */
async function failures(name: LookupName, args: Obj): Promise<{ ts: string; invoke: string }> {
  const fn = lookups[name] as (a: Obj, o: Obj) => Promise<unknown>;
  const ts = await fn(args, options()).then(() => "(no error)", (err: Error) => err.message);
  const invoke = await plugin.invoke(`sandbox:index:${name}`, args).then(
    (r) => r.failures.map((f) => f.reason).join("\n") || "(no failure)",
    (err: Error & { details?: string }) => err.details ?? err.message,
  );
  return { ts, invoke };
}

async function made<T>(method: string, path: string, body: unknown): Promise<T> {
  const res = await rest(emu(), method, path, body);
  expect(res.status, `${method} ${path}`).toBeLessThan(300);
  return (await res.json()) as T;
}

const newSandbox = async (body: Obj = {}) => (await made<{ sandboxID: string }>("POST", "/sandboxes", { templateID: "base", timeout: 120, ...body })).sandboxID;

describe("getSandbox", () => {
  test("gives the sandbox's detail as GET /sandboxes/{id} holds it, its token secret, through both front ends", async () => {
    const id = await newSandbox({ secure: true, metadata: { app: "detail" }, autoPause: true });
    const held = (await (await rest(emu(), "GET", `/sandboxes/${id}`)).json()) as Obj;
    const { ts, invoke } = await both("getSandbox", { sandboxID: id });
    expect(invoke).toEqual(ts);
    expect(ts.secrets).toEqual(["envdAccessToken"]);
    expect(ts.value).toMatchObject({
      sandboxID: id, templateID: held.templateID, state: "running", metadata: { app: "detail" }, startedAt: held.startedAt, endAt: held.endAt,
      cpuCount: held.cpuCount, memoryMB: held.memoryMB, diskSizeMB: held.diskSizeMB, envdVersion: held.envdVersion,
      envdAccessToken: held.envdAccessToken, onTimeout: "pause",
    });
    expect(held.envdAccessToken).toEqual(expect.any(String));
  });

  test("names the lookup and the ID the team has no sandbox of, and an empty ID before any call", async () => {
    const missing = await failures("getSandbox", { sandboxID: "inofake0000000000000" });
    expect(missing.ts).toMatch(/^getSandbox: sandboxID "inofake0000000000000": the API key's team has none \(.+\)$/);
    expect(missing.invoke).toContain(missing.ts);
    expect(await failures("getSandbox", { sandboxID: "" })).toEqual({ ts: "getSandbox: sandboxID: must not be empty", invoke: "getSandbox: sandboxID: must not be empty" });
  });
});

describe("getVolume", () => {
  test("gives the volume and a fresh content token, secret, through both front ends", async () => {
    const { volumeID } = await made<{ volumeID: string }>("POST", "/volumes", { name: "looked-up-volume" });
    const { ts, invoke } = await both("getVolume", { volumeID });
    // Each GET mints a token of its own.
    const tokenless = (v: unknown) => ({ ...(v as Obj), token: "(minted)" });
    expect(tokenless(invoke.value)).toEqual(tokenless(ts.value));
    expect(ts.value).toEqual({ volumeID, name: "looked-up-volume", token: expect.stringMatching(/.{16,}/) });
    expect([ts.secrets, invoke.secrets]).toEqual([["token"], ["token"]]);
    const missing = await failures("getVolume", { volumeID: "00000000-0000-4000-8000-000000000000" });
    expect(missing.ts).toMatch(/^getVolume: volumeID "00000000-0000-4000-8000-000000000000": the API key's team has none \(.+\)$/);
    expect(missing.invoke).toContain(missing.ts);
  });
});

describe("getTemplateAlias", () => {
  test("gives the template an alias names, through both front ends; an unknown alias is named", async () => {
    const { templateID } = await made<{ templateID: string }>("POST", "/v3/templates", { name: "aliased-template" });
    const { ts, invoke } = await both("getTemplateAlias", { alias: "aliased-template" });
    expect(invoke).toEqual(ts);
    expect(ts).toEqual({ value: { alias: "aliased-template", templateID, public: false }, secrets: [] });
    const missing = await failures("getTemplateAlias", { alias: "no-such-alias" });
    expect(missing.ts).toBe("getTemplateAlias: alias \"no-such-alias\": the API key's team has none (Template alias 'no-such-alias' not found)");
    expect(missing.invoke).toContain(missing.ts);
  });
});

describe("getTeamMetrics and getTeamMetricsMax", () => {
  test("find the API key's team with the access token, and give its series and maximum through both front ends", async () => {
    await newSandbox({ metadata: { app: "team" } });
    await newSandbox({ metadata: { app: "team" } });
    // A range that ends after both started (whole seconds) and before now: the two calls see the same steps.
    await new Promise((done) => setTimeout(done, 1100));
    const end = Math.floor(Date.now() / 1000);
    const range = { start: end - 120, end };
    const series = await both("getTeamMetrics", range);
    expect(series.invoke).toEqual(series.ts);
    const readings = series.ts.value as { timestampUnix: number; concurrentSandboxes: number; sandboxStartRate: number }[];
    expect(readings.length).toBeGreaterThan(0);
    expect(readings.at(-1)).toEqual({ timestampUnix: expect.any(Number), concurrentSandboxes: expect.any(Number), sandboxStartRate: expect.any(Number) });

    const [team] = (await (await fetch(`${emu().apiUrl}/teams`, { headers: { authorization: `Bearer ${emu().accessToken}` } })).json()) as { teamID: string }[];
    const given = await both("getTeamMetrics", { ...range, teamID: team!.teamID });
    expect(given.ts).toEqual(series.ts);
    const max = await both("getTeamMetricsMax", { ...range, metric: "concurrent_sandboxes" });
    expect(max.invoke).toEqual(max.ts);
    // The maximum is over every reading of the gauge, not only the series' steps: the two just made count.
    const { value } = max.ts.value as { value: number };
    expect(max.ts.value).toEqual({ timestampUnix: expect.any(Number), value: expect.any(Number) });
    expect(value).toBeGreaterThanOrEqual(Math.max(2, ...readings.map((r) => r.concurrentSandboxes)));
  });

  test("name the lookup and the argument: another team's ID, an unknown metric, a bad range, and no way to find the team", async () => {
    const other = await failures("getTeamMetrics", { teamID: "00000000-0000-4000-8000-00000000beef" });
    expect(other.ts).toMatch(/^getTeamMetrics: teamID "00000000-0000-4000-8000-00000000beef": the API key may not read it \(You \(.+\) are not authorized to access this team's \(00000000-0000-4000-8000-00000000beef\) metrics\)$/);
    expect(other.invoke).toContain(other.ts);
    const metric = await failures("getTeamMetricsMax", { metric: "sandboxes" });
    expect(metric.ts).toMatch(/^getTeamMetricsMax: metric: Invalid option: expected one of "concurrent_sandboxes"\|"sandbox_start_rate"$/);
    expect(metric.invoke).toBe(metric.ts);
    const range = await failures("getTeamMetricsMax", { metric: "sandbox_start_rate", start: 200, end: 100 });
    expect(range.ts).toMatch(/^getTeamMetricsMax: the service refused the arguments: .*start time cannot be after end time/);
    const noToken = { apiUrl: emu().apiUrl, apiKey: emu().apiKey };
    await expect(lookups.getTeamMetrics({}, noToken)).rejects.toThrow(
      "getTeamMetrics: teamID: give the team's ID (the API key alone does not tell it; the dashboard's team settings show it), or configure sandbox:accessToken (E2B_ACCESS_TOKEN) so the lookup finds it with GET /teams",
    );
  });
});

describe("getSandboxesMetrics", () => {
  test("gives the latest reading of each running sandbox asked for, in order, through both front ends", async () => {
    const [a, b, paused] = [await newSandbox(), await newSandbox(), await newSandbox()];
    expect((await rest(emu(), "POST", `/sandboxes/${paused}/pause`)).status).toBe(204);
    const { ts, invoke } = await both("getSandboxesMetrics", { sandboxIDs: [b, paused, a] });
    // A latest reading is taken when asked: the two calls' may be a second apart.
    const untimed = (answer: { value: unknown }) => (answer.value as Obj[]).map((r) => ({ ...r, timestampUnix: 0 }));
    expect(untimed(invoke)).toEqual(untimed(ts));
    expect(invoke.secrets).toEqual([]);
    const readings = ts.value as Obj[];
    expect(readings.map((r) => r.sandboxID)).toEqual([b, a]);
    expect(readings[0]).toEqual({
      sandboxID: b, timestampUnix: expect.any(Number), cpuCount: expect.any(Number), cpuUsedPct: expect.any(Number), memUsed: expect.any(Number),
      memTotal: expect.any(Number), memCache: expect.any(Number), diskUsed: expect.any(Number), diskTotal: expect.any(Number),
    });
  });

  test("names an ID the team has no sandbox of by its place, and an empty list before any call", async () => {
    const a = await newSandbox();
    const missing = await failures("getSandboxesMetrics", { sandboxIDs: [a, "inofake0000000000000"] });
    expect(missing.ts).toBe('getSandboxesMetrics: sandboxIDs[1] "inofake0000000000000": the API key\'s team has no such sandbox');
    expect(missing.invoke).toContain(missing.ts);
    expect(await failures("getSandboxesMetrics", { sandboxIDs: [] })).toEqual({
      ts: "getSandboxesMetrics: sandboxIDs: must name at least one sandbox", invoke: "getSandboxesMetrics: sandboxIDs: must name at least one sandbox",
    });
  });
});

describe("lifecycle events and webhooks", () => {
  test("listLifecycleEvents and getSandboxLifecycleEvents give the events the service holds, filtered, through both front ends", async () => {
    const id = await newSandbox({ metadata: { app: "events" } });
    expect((await rest(emu(), "POST", `/sandboxes/${id}/pause`)).status).toBe(204);
    expect((await rest(emu(), "DELETE", `/sandboxes/${id}`)).status).toBe(204);
    const own = await both("getSandboxLifecycleEvents", { sandboxID: id, orderAsc: true });
    expect(own.invoke).toEqual(own.ts);
    const events = own.ts.value as Obj[];
    expect(events.map((e) => e.type)).toEqual(["sandbox.lifecycle.created", "sandbox.lifecycle.paused", "sandbox.lifecycle.killed"]);
    expect(events[0]).toMatchObject({ sandboxID: id, templateID: expect.any(String), executionID: expect.any(String), metadata: { app: "events" } });
    expect(events[1]!.executionTimeMs).toEqual(expect.any(Number));
    const held = emu().state.lifecycleEvents().filter((e) => e.sandboxId === id).map((e) => e.id);
    expect(events.map((e) => e.id).sort()).toEqual([...held].sort());

    const killed = await both("listLifecycleEvents", { types: ["sandbox.lifecycle.killed"], limit: 100 });
    expect(killed.invoke).toEqual(killed.ts);
    expect((killed.ts.value as Obj[]).every((e) => e.type === "sandbox.lifecycle.killed")).toBe(true);
    expect((killed.ts.value as Obj[]).map((e) => e.sandboxID)).toContain(id);
  });

  test("listWebhooks and getWebhook give the team's webhooks, never a signature secret; unknown IDs and bad filters are named", async () => {
    const secret = "lookups-both-signature-secret-5d1c";
    const hook = await made<{ id: string }>("POST", "/events/webhooks", { name: "audit", url: "http://127.0.0.1:9/hook", events: ["sandbox.lifecycle.created"], signatureSecret: secret });
    const one = await both("getWebhook", { webhookID: hook.id });
    expect(one.invoke).toEqual(one.ts);
    expect(one.ts.value).toEqual({ webhookID: hook.id, name: "audit", url: "http://127.0.0.1:9/hook", enabled: true, events: ["sandbox.lifecycle.created"], createdAt: expect.any(String) });
    const all = await both("listWebhooks", {});
    expect(all.invoke).toEqual(all.ts);
    expect((all.ts.value as Obj[]).map((w) => w.webhookID)).toContain(hook.id);
    expect(JSON.stringify([one, all])).not.toContain(secret);
    const missing = await failures("getWebhook", { webhookID: "00000000-0000-4000-8000-00000000dead" });
    expect(missing.ts).toMatch(/^getWebhook: webhookID "00000000-0000-4000-8000-00000000dead": the API key's team has none \(.+\)$/);
    expect(missing.invoke).toContain(missing.ts);
    expect(await failures("listLifecycleEvents", { limit: 101 })).toEqual({
      ts: "listLifecycleEvents: limit: must be at most 100 (the service's page)", invoke: "listLifecycleEvents: limit: must be at most 100 (the service's page)",
    });
    const unknownType = await failures("listLifecycleEvents", { types: ["sandbox.lifecycle.exploded"] });
    expect(unknownType.ts).toMatch(/^listLifecycleEvents: types\.0: must be one of sandbox\.lifecycle\.created, /);
  });
});
