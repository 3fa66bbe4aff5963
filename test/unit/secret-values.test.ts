/**
 * The secrets a resource class hands the provider (`__secrets`, provider/secret-values.ts): the
 * plaintext of each secret string the program gave, and the stack's secret config values found inside
 * them, since a string made with `pulumi.interpolate` over a config secret keeps no trace of it.
 */
import * as pulumi from "@pulumi/pulumi";
import { afterEach, expect, test } from "vitest";
import { secretValuesOf } from "../../provider/secret-values";

const valueOf = <T>(output: pulumi.Output<T>) => (output as unknown as { promise(): Promise<T> }).promise();

afterEach(() => pulumi.runtime.setAllConfig({}, []));

test("a secret config value inside an interpolated secret is handed over on its own, beside the whole string", async () => {
  const token = "cfg-token-77aa21";
  const pem = "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhk\n-----END KEY-----";
  pulumi.runtime.setAllConfig(
    { "proj:token": token, "proj:pem": pem, "proj:auth": JSON.stringify({ user: "me", password: "pw-inside-json-55" }), "proj:plain": "not-secret-99" },
    ["proj:token", "proj:pem", "proj:auth"],
  );
  const config = new pulumi.Config("proj");
  const auth = config.requireSecretObject<{ user: string; password: string }>("auth");
  const dockerfile = pulumi.interpolate`FROM base\nRUN echo ${config.requireSecret("token")} ${auth.password} not-secret-99\n`;
  const values = await valueOf(secretValuesOf({ dockerfile, other: "plain" }));
  expect(values).toHaveLength(3);
  expect(values).toEqual(expect.arrayContaining([token, "pw-inside-json-55"]));
  expect(values).not.toContain("not-secret-99");
  expect(values).not.toContain(pem);
});

test("nothing is added when no secret string holds a config secret", async () => {
  pulumi.runtime.setAllConfig({ "proj:token": "cfg-token-77aa21" }, ["proj:token"]);
  expect(await valueOf(secretValuesOf({ dockerfile: "FROM base\nRUN echo cfg-token-77aa21\n" }))).toEqual([]);
});
