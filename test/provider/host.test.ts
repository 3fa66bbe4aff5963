/**
 * The serialized provider run the way the engine runs it: the real dynamic-provider host of
 * @pulumi/pulumi, in its own process, in a project where `pulumi-sandbox` is installed, driven over
 * gRPC with `__provider` in every request, against an emulator in this process. The host's env has
 * no credential: everything comes from Configure, as stack config does.
 */
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import type { ResourceKind } from "../../provider/kinds";
import { UNKNOWN } from "../../provider/spec";
import { startHost, type HostError, type ProviderHost } from "./host";
import { makeProject, type Project } from "./project";
import { providerTextOf } from "./serialized";

type Obj = Record<string, unknown>;

let project: Project;
let emu: Emulator;
let host: ProviderHost;
let configured: { acceptSecrets: boolean };
const text = {} as Record<ResourceKind, string>;
const urn = (kind: ResourceKind, name: string) => `urn:pulumi:dev::proj::pulumi-nodejs:dynamic/sandbox:${kind}::${name}`;

beforeAll(async () => {
  project = makeProject();
  emu = await createEmulator({ buildDelayMs: 50 });
  for (const kind of ["Volume", "Sandbox", "Template"] as const) text[kind] = providerTextOf(kind);
  host = await startHost({ cwd: project.dir, project: "proj" });
  configured = await host.configure({
    "sandbox:apiKey": emu.apiKey, "sandbox:accessToken": emu.accessToken, "sandbox:apiUrl": emu.apiUrl,
    "sandbox:sandboxUrl": emu.sandboxUrl, "proj:unrelated": "x",
  });
});

afterAll(async () => {
  await host?.close();
  await emu?.close();
  project?.remove();
});

async function failure(promise: Promise<unknown>): Promise<HostError> {
  try {
    await promise;
  } catch (err) {
    return err as HostError;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

test("Configure (the first call, as the engine makes it) declines secrets: the engine then sends plain values", () => {
  expect(configured).toEqual({ acceptSecrets: false });
});

describe("Volume over gRPC", () => {
  const u = urn("Volume", "data");
  let inputs: Obj;
  let id: string;
  let outs: Obj;

  test("Check fills the auto-name and keeps __provider; a bad name comes back as a failure", async () => {
    const res = await host.check(u, {}, { __provider: text.Volume, __resource: "proj/dev/data" });
    expect(res.failures).toEqual([]);
    expect(res.inputs).toMatchObject({ __provider: text.Volume, __resource: "proj/dev/data", __generation: 0, __auto: ["name"] });
    expect(res.inputs.name).toMatch(/^data-[0-9a-f]{8}$/);
    inputs = res.inputs;
    const bad = await host.check(u, {}, { __provider: text.Volume, name: "a b" });
    expect(bad.failures).toEqual([{ property: "", reason: "name: may contain only letters, digits, '_' and '-' (pattern ^[a-zA-Z0-9_-]+$)" }]);
  });

  test("Create makes the volume; the outputs carry __provider", async () => {
    ({ id, properties: outs } = await host.create(u, inputs));
    expect(emu.state.volumes().map((v) => [v.volumeID, v.name])).toEqual([[id, inputs.name]]);
    expect(outs).toMatchObject({ volumeId: id, name: inputs.name, token: expect.any(String), __provider: text.Volume });
  });

  test("Diff: the same inputs are DIFF_NONE; a new name replaces", async () => {
    expect(await host.diff(id, u, outs, inputs)).toEqual({ changes: "none", replaces: [], deleteBeforeReplace: false });
    const renamed = (await host.check(u, inputs, { __provider: text.Volume, __resource: "proj/dev/data", name: "renamed" })).inputs;
    expect(renamed).toMatchObject({ name: "renamed", __generation: 1 });
    expect(await host.diff(id, u, outs, renamed)).toEqual({ changes: "some", replaces: ["name"], deleteBeforeReplace: false });
  });

  test("Read returns the volume as stored; Update changes nothing", async () => {
    expect(await host.read(id, u, outs)).toEqual({ id, properties: outs });
    expect(await host.update(id, u, outs, inputs)).toEqual({ properties: outs });
  });

  test("Delete removes it; a second Delete succeeds; Read then returns no ID (gone)", async () => {
    await host.delete(id, u, outs);
    expect(emu.state.volumes()).toEqual([]);
    await host.delete(id, u, outs);
    expect(await host.read(id, u, outs)).toEqual({ id: "", properties: { __provider: text.Volume } });
  });
});

describe("Sandbox over gRPC", () => {
  const u = urn("Sandbox", "box");
  let inputs: Obj;
  let id: string;
  let outs: Obj;

  test("Check applies the provisioning defaults; Create runs the provisioning, its progress on the host's stderr", async () => {
    const news = { __provider: text.Sandbox, __resource: "proj/dev/box", templateID: "base", timeout: 120, provision: { commands: [{ command: "echo provisioned over grpc" }] } };
    const checked = await host.check(u, {}, news);
    expect(checked.failures).toEqual([]);
    inputs = checked.inputs;
    const preview = await host.check(u, {}, { ...news, templateID: UNKNOWN, timeout: 0 });
    expect(preview.failures).toEqual([{ property: "", reason: "timeout: must be greater than 0 (the service refuses 0)" }]);
    expect((await host.check(u, {}, { ...news, templateID: UNKNOWN })).inputs).toMatchObject({ templateID: UNKNOWN, __provider: text.Sandbox });
    expect(inputs).toMatchObject({ provision: { commands: [{ timeoutSeconds: 300 }], onFailure: "keep" }, __provider: text.Sandbox });
    ({ id, properties: outs } = await host.create(u, inputs));
    expect(emu.state.sandboxes().map((s) => s.sandboxID)).toEqual([id]);
    expect(outs).toMatchObject({
      sandboxID: id, state: "running", provisioned: true, __provider: text.Sandbox,
      provisionResults: [{ command: "echo provisioned over grpc", exitCode: 0, stdoutTail: "provisioned over grpc\n" }],
    });
    expect(host.stderr()).toContain("[Sandbox box] provision 1/1: $ echo provisioned over grpc\n");
    expect(host.stderr()).toContain("[Sandbox box] provision 1/1 | provisioned over grpc\n");
  });

  test("Diff: no change, an in-place timeout change, a replacing templateID (known or not yet known)", async () => {
    expect(await host.diff(id, u, outs, inputs)).toEqual({ changes: "none", replaces: [], deleteBeforeReplace: false });
    expect(await host.diff(id, u, outs, { ...inputs, templateID: UNKNOWN })).toEqual({ changes: "some", replaces: ["templateID"], deleteBeforeReplace: false });
    expect(await host.diff(id, u, outs, { ...inputs, timeout: 600 })).toEqual({ changes: "some", replaces: [], deleteBeforeReplace: false });
    expect(await host.diff(id, u, outs, { ...inputs, templateID: "other" })).toEqual({ changes: "some", replaces: ["templateID"], deleteBeforeReplace: false });
  });

  test("Update of timeout is one POST /sandboxes/{id}/timeout; Read agrees with the result", async () => {
    const since = emu.calls().at(-1)?.seq ?? 0;
    const { properties } = await host.update(id, u, outs, { ...inputs, timeout: 600 });
    expect(emu.calls(since).filter((c) => c.method !== "GET").map((c) => `${c.method} ${c.path}`)).toEqual([`POST /sandboxes/${id}/timeout`]);
    expect(properties).toMatchObject({ timeout: 600, sandboxID: id, __provider: text.Sandbox });
    outs = properties;
    const read = await host.read(id, u, outs);
    expect(read.id).toBe(id);
    expect(read.properties).toMatchObject({ endAt: outs.endAt, timeout: 600, provisioned: true });
  });

  test("Delete kills it; a second Delete succeeds", async () => {
    await host.delete(id, u, outs);
    expect(emu.state.sandboxes()).toEqual([]);
    await host.delete(id, u, outs);
  });
});

describe("partial creation over gRPC", () => {
  test("a failing provisioning command: status UNKNOWN with ErrorResourceInitFailed carrying the ID and __provider", async () => {
    const u = urn("Sandbox", "broken");
    const command = "echo almost there; exit 7";
    const news = { __provider: text.Sandbox, __resource: "proj/dev/broken", templateID: "base", provision: { commands: [{ command }] } };
    const { inputs } = await host.check(u, {}, news);
    const err = await failure(host.create(u, inputs));
    const [sandbox] = emu.state.sandboxes();
    expect(err.code, err.message).toBe(grpc.status.UNKNOWN);
    expect(err.details).toBe(
      `Sandbox ${sandbox!.sandboxID}: provisioning command 1 \`${command}\` exited with code 7; last output:\nalmost there\n` +
        "The sandbox is kept; the next `pulumi up` runs the provisioning again.",
    );
    expect(err.initFailure).toMatchObject({ id: sandbox!.sandboxID, reasons: [err.details] });
    expect(err.initFailure!.properties).toMatchObject({
      sandboxID: sandbox!.sandboxID, provisioned: false, __provider: text.Sandbox,
      provisionResults: [{ command, exitCode: 7, stdoutTail: "almost there\n" }],
    });
    // What the engine recorded is enough to delete it later (the host loads the provider from it).
    await host.delete(err.initFailure!.id, u, err.initFailure!.properties);
    expect(emu.state.sandboxes()).toEqual([]);
  });

  test("a failed template build: ErrorResourceInitFailed carrying the template and __provider", async () => {
    const u = urn("Template", "broken");
    const news = { __provider: text.Template, __resource: "proj/dev/broken", dockerfile: "FROM ubuntu:22.04\nRUN exit 3\n" };
    const { inputs, failures } = await host.check(u, {}, news);
    expect(failures).toEqual([]);
    const err = await failure(host.create(u, inputs));
    const [template] = emu.state.templates().filter((t) => t.aliases.includes(String(inputs.alias)));
    expect(err.code, err.message).toBe(grpc.status.UNKNOWN);
    expect(err.details).toContain("failed to run command 'exit 3': exit status 3");
    expect(err.initFailure).toMatchObject({ id: template!.templateID });
    expect(err.initFailure!.properties).toMatchObject({ templateID: template!.templateID, buildStatus: "error", __provider: text.Template });
    await host.delete(template!.templateID, u, err.initFailure!.properties);
  });
});

describe("outputs with optional fields left out", () => {
  test("a sandbox from a template that has no alias is created and recorded", async () => {
    const made = await fetch(`${emu.apiUrl}/templates`, {
      method: "POST", headers: { Authorization: `Bearer ${emu.accessToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ dockerfile: "FROM ubuntu:22.04\n" }),
    });
    expect(made.status).toBe(202);
    const { templateID } = (await made.json()) as { templateID: string };
    await expect.poll(() => emu.state.templates().find((t) => t.templateID === templateID)?.builds[0]?.status).toBe("ready");
    const u = urn("Sandbox", "plain");
    const { inputs } = await host.check(u, {}, { __provider: text.Sandbox, __resource: "proj/dev/plain", templateID });
    const created = await host.create(u, inputs).catch((err: HostError) => err);
    const sandboxes = emu.state.sandboxes();
    expect(created, (created as Error).message).not.toBeInstanceOf(Error);
    const { id, properties } = created as { id: string; properties: Obj };
    expect(sandboxes.map((s) => s.sandboxID)).toEqual([id]);
    expect(properties).toMatchObject({ sandboxID: id, templateID, provisioned: true });
    expect(properties).not.toHaveProperty("alias");
    await host.delete(id, u, properties);
  });
});
