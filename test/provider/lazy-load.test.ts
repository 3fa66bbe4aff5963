/**
 * What each side loads, in a project where the package is installed: a program importing
 * `pulumi-sandbox` gets the resource classes and no zod, schema or client (validation happens in the
 * provider host); the host loads the specs for `check` and `diff` (all a preview makes), and the HTTP
 * and in-sandbox clients only for a call that reaches the service.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { makeProject, type Project } from "./project";

let project: Project;
let emu: Emulator;

beforeAll(async () => {
  project = makeProject();
  emu = await createEmulator();
});

afterAll(async () => {
  await emu?.close();
  project?.remove();
});

/**
 * Runs `script` (CommonJS, an expression that ends in a promise) in the project, not blocking this
 * process (the emulator answers from here); resolves with the modules it loaded, relative to node_modules.
 */
async function loaded(script: string): Promise<string[]> {
  const code = `${script}
    .then(() => console.log(JSON.stringify(Object.keys(require.cache).map((f) => f.slice(f.lastIndexOf("node_modules/") + 13)))));`;
  const env = { PATH: process.env.PATH ?? "", E2B_API_KEY: emu.apiKey, E2B_API_URL: emu.apiUrl };
  const { stdout } = await promisify(execFile)(process.execPath, ["-e", code], { cwd: project.dir, encoding: "utf8", env });
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as string[];
}

const packagesIn = (files: string[]) => new Set(files.map((f) => (f.startsWith("@") ? f.split("/").slice(0, 2).join("/") : f.split("/")[0]!)));
const own = (files: string[]) => files.filter((f) => f.startsWith("pulumi-sandbox/")).map((f) => f.slice("pulumi-sandbox/dist/".length)).sort();

test("a program that imports pulumi-sandbox and declares a sandbox loads the classes, not zod, the specs or a client", async () => {
  const files = await loaded(`
    // The project has only pulumi-sandbox installed: its @pulumi/pulumi is the one the classes use.
    const pulumi = require(require.resolve("@pulumi/pulumi", { paths: [require.resolve("pulumi-sandbox")] }));
    pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name + "-id", state: a.inputs }), call: () => ({}) }, "proj", "dev");
    const { Sandbox } = require("pulumi-sandbox");
    new Sandbox("box", { templateID: "base", envVars: { A: "b" } });
    Promise.resolve()`);
  expect(own(files)).toEqual(["provider/class-shapes.js", "provider/classes.js", "provider/handle.js", "provider/index.js", "provider/printable-args.js", "provider/resource-class.js", "provider/resource-key.js", "provider/secret-values.js", "provider/shallow-stacks.js", "provider/spec.js", "provider/stack-instance.js", "sdk/node-version.js"]);
  for (const dependency of ["zod", "undici", "@connectrpc/connect", "@bufbuild/protobuf"]) expect(packagesIn(files).has(dependency), dependency).toBe(false);
});

test("the host's check and diff load the specs and zod, and no client; a call to the service loads the HTTP client, not the in-sandbox one", async () => {
  const checkAndDiff = `
    const provider = require("pulumi-sandbox/runtime").provider("Sandbox");
    provider.configure({ config: { get: () => undefined } });
    const checked = provider.check({}, { templateID: "base", __resource: "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/sandbox:Sandbox::box" });
    checked.then(({ inputs, failures }) => { if (failures) throw new Error(JSON.stringify(failures)); return provider.diff("id", inputs, inputs); })`;
  const preview = packagesIn(await loaded(checkAndDiff));
  expect(preview.has("zod")).toBe(true);
  for (const dependency of ["undici", "@connectrpc/connect", "@bufbuild/protobuf"]) expect(preview.has(dependency), dependency).toBe(false);
  // A delete (here of a sandbox that is gone: 404, done) is a call to the service.
  const remove = packagesIn(await loaded(`${checkAndDiff}.then(() => provider.delete("i0000000000000000000a", {}))`));
  expect(remove.has("undici")).toBe(true);
  // Only provisioning commands need the in-sandbox clients.
  for (const dependency of ["@connectrpc/connect", "@bufbuild/protobuf"]) expect(remove.has(dependency), dependency).toBe(false);
});

test("a Template's check, which derives its build steps from the Dockerfile, loads no client either; a new one's asks who holds its auto-name", async () => {
  const urn = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/sandbox:Template::tpl";
  // In state: the key and the alias are kept from it, so nothing is asked.
  const stored = { dockerfile: "FROM python:3.12", __resource: urn, alias: "tpl-0123abcd", __auto: ["alias"], __generation: 0, __nonce: "0123456789abcdef" };
  const checkOf = (olds: Record<string, unknown>) => `
    const provider = require("pulumi-sandbox/runtime").provider("Template");
    provider.configure({ config: { get: () => undefined } });
    provider.check(${JSON.stringify(olds)}, { dockerfile: "FROM python:3.12\\nRUN echo hi", __resource: ${JSON.stringify(urn)} })
      .then(({ inputs, failures }) => { if (failures || !inputs.buildSteps) throw new Error(JSON.stringify(failures ?? inputs)); })`;
  const loadedByCheck = packagesIn(await loaded(checkOf(stored)));
  for (const dependency of ["undici", "@connectrpc/connect", "@bufbuild/protobuf"]) expect(loadedByCheck.has(dependency), dependency).toBe(false);
  // A resource with no state yet: `check` asks the service who holds its auto-name (provider/runtime/name-choice.ts).
  const loadedByNew = packagesIn(await loaded(checkOf({})));
  expect(loadedByNew.has("undici")).toBe(true);
  for (const dependency of ["@connectrpc/connect", "@bufbuild/protobuf"]) expect(loadedByNew.has(dependency), dependency).toBe(false);
});
