/**
 * The provider text Pulumi stores in every resource's state: small, free of credentials (even when
 * the process that serializes it has them in its env and in the configured runtime), free of this
 * machine's paths, and the same on every run (a changed text would show every resource as changed).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { configure } from "../../provider/runtime/index";
import type { ResourceKind } from "../../provider/spec";
import { REPO } from "./project";
import { serializedProvider } from "./serialized";

const CREDENTIALS = {
  E2B_API_KEY: "e2b_0123456789abcdef0123456789abcdef01234567",
  E2B_ACCESS_TOKEN: "sk_e2b_fedcba9876543210fedcba9876543210fedcba98",
  E2B_API_URL: "http://127.0.0.1:9/private-endpoint",
};
const saved = Object.fromEntries(Object.keys(CREDENTIALS).map((k) => [k, process.env[k]]));

beforeAll(() => {
  Object.assign(process.env, CREDENTIALS);
  const config: Record<string, string> = { "sandbox:apiKey": CREDENTIALS.E2B_API_KEY, "sandbox:accessToken": CREDENTIALS.E2B_ACCESS_TOKEN };
  configure({ config: { get: (k) => config[k] } });
});

afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

describe.each(["Volume", "Template", "Sandbox"] satisfies ResourceKind[])("%s", (kind) => {
  test("serializes to a small module that loads the runtime by package name and captures only its kind", async () => {
    const { text, exportName, containsSecrets } = await serializedProvider(kind);
    expect(exportName).toBe("handler");
    expect(containsSecrets).toBe(false);
    expect(text.length).toBeLessThan(4096);
    expect(text).toContain('require("pulumi-sandbox/runtime")');
    expect(text).toContain(`kind: "${kind}"`);
    for (const method of ["configure", "check", "diff", "create", "read", "update", "delete"]) expect(text).toContain(`${method}: __f`);
  });

  test("holds no credential, endpoint or path of this machine", async () => {
    const { text } = await serializedProvider(kind);
    for (const [name, value] of Object.entries(CREDENTIALS)) expect(text.includes(value), name).toBe(false);
    expect(text).not.toContain(REPO);
    expect(text).not.toMatch(/e2b_[0-9a-f]{8}|sk_e2b_/);
  });

  test("is the same text every time", async () => {
    expect((await serializedProvider(kind)).text).toBe((await serializedProvider(kind)).text);
  });
});
