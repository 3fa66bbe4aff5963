/**
 * Missing credentials fail `check` (so at preview, before any call), naming the config key and saying
 * where to set it. The env vars the sdk falls back to are cleared for this file, so only config counts.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Emulator } from "../../emulator";
import { checkReasons, configureFor, runtime, startEmulator } from "./harness";

const ENV = ["E2B_API_KEY", "E2B_ACCESS_TOKEN"] as const;
const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
let emu: Emulator;

beforeAll(async () => {
  for (const k of ENV) delete process.env[k];
  emu = await startEmulator();
});

afterAll(async () => {
  for (const k of ENV) if (saved[k] !== undefined) process.env[k] = saved[k];
  await emu?.close();
});

const API_KEY = "sandbox:apiKey: Template needs an API key: run `pulumi config set --secret sandbox:apiKey <key>` or set E2B_API_KEY.";
const ACCESS_TOKEN =
  'sandbox:accessToken: Template needs an access token (buildSystem "v1": its build endpoints take only a Bearer token): ' +
  "run `pulumi config set --secret sandbox:accessToken <token>` or set E2B_ACCESS_TOKEN.";
const V1 = { dockerfile: "FROM ubuntu", buildSystem: "v1" };

test("no credential at all: a v1 Template names both keys; a Template, a Volume and a Sandbox the API key; nothing is sent", async () => {
  configureFor(emu, ["sandbox:apiKey", "sandbox:accessToken"]);
  expect(await checkReasons("Template", V1)).toEqual([API_KEY, ACCESS_TOKEN]);
  expect(await checkReasons("Template", { dockerfile: "FROM ubuntu" })).toEqual([API_KEY]);
  expect(await checkReasons("Volume", {})).toEqual([API_KEY.replace("Template", "Volume")]);
  expect(await checkReasons("Sandbox", { templateID: "base" })).toEqual([API_KEY.replace("Template", "Sandbox")]);
  expect(emu.calls()).toEqual([]);
});

test("an API key alone is enough for a Sandbox and a Template (the current build system), not for a v1 Template", async () => {
  configureFor(emu, ["sandbox:accessToken"]);
  expect(await checkReasons("Template", V1)).toEqual([ACCESS_TOKEN]);
  expect((await runtime.check("Template", {}, { dockerfile: "FROM ubuntu" })).failures).toBeUndefined();
  expect((await runtime.check("Sandbox", {}, { templateID: "base" })).failures).toBeUndefined();
});

test("the env vars stand in for missing config", async () => {
  configureFor(emu, ["sandbox:apiKey", "sandbox:accessToken"]);
  process.env.E2B_API_KEY = emu.apiKey;
  process.env.E2B_ACCESS_TOKEN = emu.accessToken;
  try {
    expect((await runtime.check("Template", {}, V1)).failures).toBeUndefined();
  } finally {
    for (const k of ENV) delete process.env[k];
  }
});

test("input errors come first: a bad input is reported even without credentials", async () => {
  configureFor(emu, ["sandbox:apiKey", "sandbox:accessToken"]);
  expect(await checkReasons("Volume", { name: "a b" })).toEqual([
    "name: may contain only letters, digits, '_' and '-' (pattern ^[a-zA-Z0-9_-]+$)",
  ]);
});
