/**
 * What the runtime keeps secret and hides (provider/runtime/secrets.ts), for both front ends: results
 * derived from a secret input are secret too, and every log line is redacted a line at a time.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { check, configure } from "../../provider/runtime/index";
import { resourceLogger, setLogSink } from "../../provider/runtime/log";
import { hiddenValues, secretKeys } from "../../provider/runtime/secrets";

const TOKEN = "idx-token-4c1d9e";
const DOCKERFILE = `FROM python:3.12\nRUN pip install --index-url https://u:${TOKEN}@pypi.example/simple \\\n    app\nRUN echo ${TOKEN}\n`;
const KEY = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/sandbox:Template::app";

let lines: string[] = [];
beforeEach(() => {
  lines = [];
  setLogSink((line) => lines.push(line));
  configure({ config: { get: (k) => ({ "sandbox:apiKey": "e2b_unit_key_0a1b2c" })[k] } });
});
afterEach(() => setLogSink((line) => process.stderr.write(`${line}\n`)));

/** A Template's inputs as `check` makes them, the Dockerfile secret (as the class's `__secrets` says). */
async function checkedTemplate(secret: boolean): Promise<Record<string, unknown>> {
  const outcome = await check("Template", {}, { dockerfile: DOCKERFILE, __resource: KEY, ...(secret ? { __secrets: [DOCKERFILE, TOKEN] } : {}) });
  expect(outcome.failures).toBeUndefined();
  return outcome.inputs!;
}

describe("what derives from a secret input is secret", () => {
  test("a Template's buildSteps and lastBuildError when its Dockerfile came in secret, and not otherwise", async () => {
    const inputs = await checkedTemplate(true);
    // The continued line joined as BuildKit joins it (the whitespace around the `\` kept).
    expect(inputs.buildSteps).toContain(`RUN pip install --index-url https://u:${TOKEN}@pypi.example/simple     app`);
    expect([...secretKeys("Template", inputs)]).toEqual(expect.arrayContaining(["dockerfile", "buildSteps", "lastBuildError"]));
    const plain = await checkedTemplate(false);
    expect(secretKeys("Template", plain).has("buildSteps")).toBe(false);
  });

  test("a front end that knows the secret keys itself (the plugin) gets what derives from them", () => {
    expect(secretKeys("Template", { alias: "app" }, ["alias"])).toEqual(new Set(["alias", "aliases", "names"]));
  });

  test("a Sandbox's alias when its templateID is secret, its urls when its ports are; a Volume's seed records when its content is", () => {
    expect(secretKeys("Sandbox", { templateID: "private-tpl", __secrets: ["private-tpl"] }).has("alias")).toBe(true);
    expect(secretKeys("Sandbox", { templateID: "base", __secrets: ["other"] }).has("alias")).toBe(false);
    expect(secretKeys("Sandbox", { ports: [8000] }, ["ports"]).has("urls")).toBe(true);
    expect(secretKeys("Sandbox", { ports: [8000] }).has("urls")).toBe(false);
    const content = { path: "seed", target: "/private-target" };
    expect([...secretKeys("Volume", { content, __secrets: ["/private-target"] })]).toEqual(expect.arrayContaining(["contentWritten", "contentDrift"]));
  });

  test("a TemplateTag whose template or tag is secret is refused at check: its ID (alias:tag) is stored in plain text", async () => {
    const outcome = await check("TemplateTag", {}, { template: "app", tag: "prod", target: "v5", __resource: "k", __secrets: ["app"] });
    expect(outcome.failures?.map((f) => f.reason)).toEqual([
      "template: is a secret, but it is part of the TemplateTag's ID, which Pulumi stores in plain text and cannot mark secret. " +
        "Pass a value that is not secret (`pulumi.unsecret(...)` if it need not be one).",
    ]);
    expect((await check("TemplateTag", {}, { template: "app", tag: "prod", target: "v5", __resource: "k", __secrets: ["v5"] })).failures).toBeUndefined();
  });

  test("a check failure does not quote what the program marked secret", async () => {
    const dockerfile = `FROM base\nCOPY ${TOKEN} /app\n`;
    // The token a config secret: the class sends it beside the Dockerfile made around it.
    const outcome = await check("Template", {}, { dockerfile, __resource: KEY, __secrets: [dockerfile, TOKEN] });
    expect(outcome.failures?.[0]?.reason).toMatch(/^dockerfile: line 2: COPY: /);
    expect(JSON.stringify(outcome.failures)).not.toContain(TOKEN);
  });
});

describe("every log line is redacted, a line at a time", () => {
  test("a Template's build log hides its secret Dockerfile's lines, its steps and the token inside them, and the credentials", async () => {
    const log = resourceLogger("Template", await checkedTemplate(true));
    log(`step 2: [2/3] RUN pip install --index-url https://u:${TOKEN}@pypi.example/simple     app`);
    log(`step 3: [3/3] RUN echo ${TOKEN}`);
    log(`${TOKEN}\nnext line`);
    log("refused: API key e2b_unit_key_0a1b2c");
    expect(lines).toEqual([
      "[Template app] step 2: [2/3] [redacted]",
      "[Template app] step 3: [3/3] [redacted]",
      "[Template app] [redacted]",
      "[Template app] next line",
      "[Template app] refused: API key [redacted]",
    ]);
  });

  test("each line of a multi-line secret, wherever it shows, for every kind", () => {
    const pem = "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhk\niG9w0BAQEFAASCBKcw\n-----END KEY-----";
    for (const kind of ["Sandbox", "Volume", "Template"] as const) {
      lines = [];
      const log = resourceLogger(kind, { __resource: KEY, __secrets: [pem] });
      log("provision 1/1 | MIIEvQIBADANBgkqhk\nprovision 1/1 | iG9w0BAQEFAASCBKcw");
      expect(lines, kind).toEqual([`[${kind} app] provision 1/1 | [redacted]`, `[${kind} app] provision 1/1 | [redacted]`]);
    }
  });

  test("a plain Dockerfile is shown as it is", async () => {
    resourceLogger("Template", await checkedTemplate(false))(`step 3: [3/3] RUN echo ${TOKEN}`);
    expect(lines).toEqual([`[Template app] step 3: [3/3] RUN echo ${TOKEN}`]);
    expect(hiddenValues("Template", await checkedTemplate(false))).toEqual(["e2b_unit_key_0a1b2c"]);
  });
});
