/**
 * Config from the domain alone, through both front ends as the engine drives them (each in its own
 * process): the dynamic provider given only `sandbox:domain` and `sandbox:apiKey` as stack config, the
 * native plugin only E2B_DOMAIN and E2B_API_KEY in its env; each host has NODE_EXTRA_CA_CERTS for the
 * emulator's CA, as a user of a private deployment would. The emulator serves the domain over https
 * (emulator/domain/), so each request must reach `api.<domain>` or `<port>-<id>.<domain>`: there is no
 * URL to fall back on. A Sandbox with a provisioning command goes up, and its `urls` use the domain.
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { startHost, type ProviderHost } from "./host";
import { openUrl, serveCommand } from "./open-url";
import { makeProject, REPO, type Project } from "./project";
import { providerTextOf } from "./serialized";

type Obj = Record<string, unknown>;

let emu: Emulator;
let project: Project;
const hosts: Record<"dynamic" | "plugin", ProviderHost> = {} as never;

beforeAll(async () => {
  emu = await createEmulator({ domain: "localhost", buildDelayMs: 50 });
  project = makeProject();
  const bin = join(project.dir, "node_modules", "pulumi-sandbox", "bin");
  mkdirSync(bin);
  copyFileSync(join(REPO, "bin", "pulumi-resource-sandbox"), join(bin, "pulumi-resource-sandbox"));
  const trust = { NODE_EXTRA_CA_CERTS: emu.caFile! };
  hosts.dynamic = await startHost({ cwd: project.dir, project: "proj", env: trust });
  await hosts.dynamic.configure({ "sandbox:apiKey": emu.apiKey, "sandbox:domain": emu.domain! });
  const env = { ...trust, E2B_API_KEY: emu.apiKey, E2B_DOMAIN: emu.domain! };
  hosts.plugin = await startHost({ cwd: project.dir, project: "proj", env, plugin: join(bin, "pulumi-resource-sandbox") });
  await hosts.plugin.configure({});
}, 120_000);

afterAll(async () => {
  for (const host of Object.values(hosts)) await host?.close();
  await emu?.close();
  project?.remove();
});

/** A value with the plugin's secret wrappers taken off. */
const plain = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(plain)
  : v && typeof v === "object" ? ((v as Obj)[specialSigKey] === specialSecretSig ? plain((v as Obj).value) : Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)])))
  : v;

describe("a Sandbox with only the domain configured", () => {
  for (const [name, port] of [["dynamic", 8000], ["plugin", 8001]] as const) {
    test(`${name}: it goes up with its provisioning command, its urls use the domain and answer from the sandbox`, async () => {
      const host = hosts[name];
      const urn = name === "dynamic" ? "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/sandbox:Sandbox::web" : "urn:pulumi:dev::proj::sandbox:index:Sandbox::web";
      const props = { templateID: "base", timeoutSeconds: 300, ports: [port], provision: { commands: [{ command: serveCommand(port, `by-domain-${name}`) }] } };
      const own = name === "dynamic" ? { __provider: providerTextOf("Sandbox") } : {};
      const { inputs, failures } = await host.check(urn, {}, { ...props, ...own });
      expect(failures).toEqual([]);
      const { id, properties } = await host.create(urn, inputs);
      const outs = plain(properties) as Obj;
      const url = `https://${port}-${id}.${emu.domain}`;
      expect(outs.urls).toEqual({ [port]: url });
      expect(outs.provisionResults).toMatchObject([{ exitCode: 0 }]);
      expect(await openUrl(url, {}, emu.caFile)).toEqual({ status: 200, body: `by-domain-${name}` });
      expect(emu.state.sandboxes().map((s) => s.sandboxID)).toEqual([id]);
      await host.delete(id, urn, properties);
      expect(emu.state.sandboxes()).toEqual([]);
    });
  }
});
