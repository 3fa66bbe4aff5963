/**
 * The native plugin keys a new resource with the ID of its provider instance, which the engine sends
 * with Configure (provider/plugin/stack-instance.ts): two stacks of one name and project (two plugin
 * processes, two provider IDs) check the same URNs into different keys and names, and the same provider
 * ID checks them into the same ones again, as a re-run after a kill needs. The runtime is the dynamic
 * provider's too; its classes find the ID in the program (provider/stack-instance.ts, e2e).
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { UNKNOWN } from "../../provider/spec";
import { startHost, type ProviderHost } from "./host";
import { makeProject, REPO, type Project } from "./project";

const ANA = "0b2f6d8e-5c1a-4f3e-9a7b-1d2c3e4f5a6b";
const BEN = "7e9d1c2b-3a4f-4e5d-8c6b-9a8f7e6d5c4b";
const VOLUME = "urn:pulumi:dev::proj::sandbox:index:Volume::data";
const TEMPLATE = "urn:pulumi:dev::proj::sandbox:index:Template::web";

let project: Project;
let launcher: string;
const hosts: ProviderHost[] = [];

beforeAll(async () => {
  project = makeProject();
  const bin = join(project.dir, "node_modules", "pulumi-sandbox", "bin");
  mkdirSync(bin);
  launcher = join(bin, "pulumi-resource-sandbox");
  copyFileSync(join(REPO, "bin", "pulumi-resource-sandbox"), launcher);
}, 120_000);

afterAll(async () => {
  for (const host of hosts) await host.close();
  project?.remove();
});

/** A plugin process configured as the engine configures the provider with this ID. */
async function plugin(providerID?: string): Promise<ProviderHost> {
  const host = await startHost({ cwd: project.dir, project: "proj", env: { E2B_API_KEY: "e2b_key" }, plugin: launcher });
  hosts.push(host);
  await host.configure({}, providerID);
  return host;
}

async function names(host: ProviderHost, olds: Record<string, unknown> = {}) {
  const volume = (await host.check(VOLUME, olds, {})).inputs;
  const template = (await host.check(TEMPLATE, {}, { dockerfile: "FROM e2bdev/base:latest\n" })).inputs;
  return { key: volume.__resource, volume: volume.name, template: template.alias };
}

test("two provider IDs, the same URNs: different keys and auto-names; the same ID again: the same ones", async () => {
  const [ana, ben, anaAgain] = [await names(await plugin(ANA)), await names(await plugin(BEN)), await names(await plugin(ANA))];
  expect(ana.key).toBe(`${ANA}/${VOLUME}`);
  expect(ana.volume).toMatch(/^data-[0-9a-f]{8}$/);
  expect(ben.volume).not.toBe(ana.volume);
  expect(ben.template).not.toBe(ana.template);
  expect(anaAgain).toEqual(ana);
});

test("at the preview of the up that creates the provider (its ID unknown), the key and auto-names are unknown", async () => {
  expect(await names(await plugin(UNKNOWN))).toEqual({ key: UNKNOWN, volume: UNKNOWN, template: UNKNOWN });
});

test("a resource in state keeps its stored key and names, whatever the provider's ID", async () => {
  const old = (await (await plugin()).check(VOLUME, {}, {})).inputs;
  expect(old.__resource).toBe(VOLUME); // an engine that sends no ID: the URN alone, as before
  const now = await names(await plugin(BEN), old);
  expect({ key: now.key, volume: now.volume }).toEqual({ key: VOLUME, volume: old.name });
});
