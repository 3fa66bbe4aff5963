/**
 * State written by 0.1.0 holds Pulumi's serialization of its provider handle as `__provider` (about
 * 2.4 KB, calling `configure`, `check`, ... `remove` of the runtime with the kind first), and outputs
 * keep that text until an update rewrites them. The real dynamic-provider host must still run it, and
 * in the same process as the one-line text of today (a stack mid-upgrade holds both).
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { startHost, type ProviderHost } from "./host";
import { makeProject, type Project } from "./project";
import { legacyProviderText, providerTextOf } from "./serialized";

let project: Project;
let emu: Emulator;
let host: ProviderHost;
const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-nodejs:dynamic/sandbox:Volume::${name}`;

beforeAll(async () => {
  project = makeProject();
  emu = await createEmulator();
  host = await startHost({ cwd: project.dir, project: "proj" });
  await host.configure({ "sandbox:apiKey": emu.apiKey, "sandbox:accessToken": emu.accessToken, "sandbox:apiUrl": emu.apiUrl, "sandbox:sandboxUrl": emu.sandboxUrl });
});

afterAll(async () => {
  await host?.close();
  await emu?.close();
  project?.remove();
});

test("the 0.1.0 text is the serializer's handle, not today's line", () => {
  const legacy = legacyProviderText("Volume");
  expect(legacy).toContain('require("pulumi-sandbox/runtime")');
  expect(legacy).toContain('kind: "Volume"');
  expect(legacy).not.toBe(providerTextOf("Volume"));
});

test("a volume under the 0.1.0 text and one under today's, in one host: check, create, diff, read, delete", async () => {
  const texts = { old: legacyProviderText("Volume"), now: providerTextOf("Volume") };
  const made: Record<string, { id: string; properties: Record<string, unknown> }> = {};
  for (const [which, text] of Object.entries(texts)) {
    const { inputs, failures } = await host.check(urn(which), {}, { __provider: text, __resource: `proj/dev/${which}`, name: `vol-${which}` });
    expect(failures, which).toEqual([]);
    made[which] = await host.create(urn(which), inputs);
    expect(made[which]!.properties, which).toMatchObject({ volumeID: made[which]!.id, name: `vol-${which}`, __provider: text });
    expect(await host.diff(made[which]!.id, urn(which), made[which]!.properties, inputs), which).toEqual({ changes: "none", replaces: [], deleteBeforeReplace: false });
    // A bad input is refused through either text, with the same message.
    expect((await host.check(urn(which), {}, { __provider: text, name: "a b" })).failures, which).toEqual([
      { property: "", reason: "name: may contain only letters, digits, '_' and '-' (pattern ^[a-zA-Z0-9_-]+$)" },
    ]);
  }
  expect(emu.state.volumes().map((v) => v.name).sort()).toEqual(["vol-now", "vol-old"]);
  for (const [which, { id, properties }] of Object.entries(made)) {
    expect(await host.read(id, urn(which), properties), which).toEqual({ id, properties });
    await host.delete(id, urn(which), properties);
  }
  expect(emu.state.volumes()).toEqual([]);
});
