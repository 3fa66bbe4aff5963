// schema.json is the package's published contract: it must be a valid Pulumi package schema, say what
// the specs say (every input, secret, replacement, default), and the reference sections of the docs
// pages (each kind's page, docs/lookups.md, docs/configuration.md, docs/reruns-and-identity.md) must be its
// rendering. Expectations are derived from the specs where they can be, so a new field is checked too.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import Ajv2020 from "ajv/dist/2020";
import { describe, expect, test } from "vitest";
import type { z } from "zod";
import * as classes from "../../provider/classes";
import { KINDS } from "../../provider/kinds";
import { buildSchema, dynamicType, renderReference, spliceReference, SPECS, type PackageInfo, type PackageSchema } from "../../provider/schema/build";
import { ObjectTypes, type PropertySpec } from "../../provider/schema/convert";
import { BEGIN, END, kindPage } from "../../provider/schema/reference";
import { INTERNAL_INPUTS, type ResourceSpec } from "../../provider/spec";
import { resolveOptions } from "../../sdk/config";
import { DEFAULT_MAX_RETRIES } from "../../provider/config-keys";
import { LOOKUPS, secretsOf, type LookupName } from "../../provider/lookup-shapes";

const root = join(__dirname, "..", "..");
// Vendored with its source and commit (test/data/README.md): the suite needs nothing beside the checkout.
const METASCHEMA = join(root, "test", "data", "pulumi-package-metaschema.json");
const schema = JSON.parse(readFileSync(join(root, "schema.json"), "utf8")) as PackageSchema;
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as PackageInfo;

const tokenOf = (spec: ResourceSpec) => `sandbox:index:${spec.kind}`;
const resourceOf = (spec: ResourceSpec) => schema.resources[tokenOf(spec)]!;
const userInputs = (spec: ResourceSpec) => Object.keys(spec.inputs.shape).filter((k) => !(INTERNAL_INPUTS as readonly string[]).includes(k));
const fieldOf = (spec: ResourceSpec, name: string) => (spec.inputs.shape as Record<string, z.ZodType>)[name]!;

function metaschemaValidator() {
  if (!existsSync(METASCHEMA)) {
    throw new Error(`Pulumi's package metaschema is missing: expected ${METASCHEMA} (see test/data/README.md)`);
  }
  const meta = JSON.parse(readFileSync(METASCHEMA, "utf8")) as object;
  // Compiled here, so a reference to a schema outside this file would need ajv.addSchema first.
  const external = [...refsIn(meta)].filter((ref) => !ref.startsWith("#"));
  if (external.length) throw new Error(`the metaschema references other documents (${external.join(", ")}): load them with ajv.addSchema`);
  // The metaschema uses union types (`"type": ["boolean", "number", "string"]`), which strict mode
  // refuses unless allowed, and two formats that ajv leaves to plugins: defined here.
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  ajv.addFormat("regex", (s: string) => canCompile(s));
  ajv.addFormat("uri-reference", (s: string) => !/\s/.test(s) && URL.canParse(s, "https://base.invalid/"));
  const validate = ajv.compile(meta);
  return (doc: unknown) => (validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));
}

function canCompile(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

function* refsIn(node: unknown): Generator<string> {
  if (Array.isArray(node)) for (const item of node) yield* refsIn(item);
  else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") yield value;
      else yield* refsIn(value);
    }
  }
}

/** Every (place, name) marked with `flag` in the schema, to compare with what the specs say. */
function marked(flag: "secret" | "replaceOnChanges"): string[] {
  const out: string[] = [];
  const scan = (place: string, props: Record<string, PropertySpec>) => {
    for (const [name, p] of Object.entries(props)) if (p[flag]) out.push(`${place}.${name}`);
  };
  for (const [token, r] of Object.entries(schema.resources)) {
    scan(`${token} input`, r.inputProperties);
    scan(`${token} output`, r.properties);
  }
  for (const [token, t] of Object.entries(schema.types)) scan(token, t.properties);
  return out.sort();
}

describe("schema.json against Pulumi's package metaschema", () => {
  // Built on first use, so a missing metaschema fails these tests (with its path), not the whole file.
  let validator: ((doc: unknown) => string[]) | undefined;
  const validate = (doc: unknown) => (validator ??= metaschemaValidator())(doc);

  test("is a valid package schema", () => {
    expect(validate(schema)).toEqual([]);
  });

  test("a broken copy is rejected, and the errors name the bad paths", () => {
    const broken = structuredClone(schema) as unknown as { resources: Record<string, { inputProperties: Record<string, Record<string, unknown>> }> };
    broken.resources["sandbox:index:Volume"]!.inputProperties.name!.type = "text";
    broken.resources["sandbox:index:Sandbox"]!.inputProperties.envVars!.secret = "yes";
    broken.resources.Sandbox = broken.resources["sandbox:index:Sandbox"]!;
    const errors = validate(broken);
    expect(errors).toContain("/resources/sandbox:index:Volume/inputProperties/name/type must be equal to one of the allowed values");
    expect(errors).toContain("/resources/sandbox:index:Sandbox/inputProperties/envVars/secret must be boolean");
    expect(errors).toContain("/resources property name must be valid");
  });

  test("is what the specs generate today (else run `npm run gen`)", () => {
    expect(buildSchema(pkg)).toEqual(schema);
  });
});

describe("resources", () => {
  // From the registry (provider/kinds/index.ts), not a list here: a kind added there needs no edit of
  // this test, and one missing from schema.json (gen not run) still fails it.
  test("are the registry's kinds, under package tokens", () => {
    expect(Object.keys(schema.resources)).toEqual(KINDS.map((kind) => `sandbox:index:${kind}`).sort());
    expect(Object.keys(schema.resources)).toEqual(expect.arrayContaining(["sandbox:index:Sandbox", "sandbox:index:Secret", "sandbox:index:Snapshot", "sandbox:index:Template", "sandbox:index:TemplateTag", "sandbox:index:Volume"]));
    expect(schema).toMatchObject({ name: "sandbox", version: pkg.version });
  });

  test.each(SPECS.map((s) => [s.kind, s] as const))("%s: every input and output of the spec, with its description", (_kind, spec) => {
    const r = resourceOf(spec);
    expect(Object.keys(r.inputProperties).sort()).toEqual(userInputs(spec).sort());
    for (const name of userInputs(spec)) {
      expect(r.properties, `${name} echoed as an output`).toHaveProperty([name]);
      expect(r.inputProperties[name]!.description).toContain(fieldOf(spec, name).description);
    }
    for (const name of Object.keys(spec.outputs.shape)) expect(r.properties, `output ${name}`).toHaveProperty([name]);
    for (const internal of INTERNAL_INPUTS) expect(Object.keys(r.properties)).not.toContain(internal);
  });

  test.each(SPECS.map((s) => [s.kind, s] as const))("%s: required inputs are those zod cannot leave out, and defaults are zod's", (_kind, spec) => {
    const r = resourceOf(spec);
    expect(r.requiredInputs).toEqual(userInputs(spec).filter((name) => !fieldOf(spec, name).safeParse(undefined).success).sort());
    for (const name of userInputs(spec)) expect(r.inputProperties[name]!.default, name).toEqual(fieldOf(spec, name).safeParse(undefined).data);
  });

  test("required inputs and defaults, as users meet them", () => {
    expect(schema.resources["sandbox:index:Template"]!.requiredInputs).toEqual(["dockerfile"]);
    // A Sandbox needs templateID or forkFrom: check says so (crossChecks), the schema requires neither.
    expect(schema.resources["sandbox:index:Sandbox"]!.requiredInputs).toEqual([]);
    expect(schema.resources["sandbox:index:Volume"]!.requiredInputs).toEqual([]);
    expect(schema.resources["sandbox:index:Template"]!.inputProperties).toMatchObject({ public: { default: false }, buildTimeoutSeconds: { default: 1200 } });
    expect(schema.types["sandbox:index:ProvisionCommand"]!.properties.timeoutSeconds).toMatchObject({ type: "integer", default: 300 });
    expect(schema.types["sandbox:index:Provision"]!.properties.onFailure!.description).toContain("One of `keep`, `delete`.");
    // Always-present outputs include defaulted and auto-named inputs, which check fills in.
    expect(schema.resources["sandbox:index:Template"]!.required).toEqual(expect.arrayContaining(["alias", "public", "templateID", "buildID"]));
    expect(schema.resources["sandbox:index:Template"]!.required).not.toContain("lastBuildError");
  });

  test("secret inputs and outputs are marked secret as outputs, and nothing else is: no input", () => {
    const expected = SPECS.flatMap((spec) =>
      [...new Set([...spec.secretInputs, ...spec.secretOutputs])].map((n) => `${tokenOf(spec)} output.${n}`),
    );
    expect(marked("secret")).toEqual(expected.sort());
    for (const name of ["envdAccessToken", "trafficAccessToken", "envVars", "provision"]) expect(schema.resources["sandbox:index:Sandbox"]!.properties[name]!.secret, name).toBe(true);
    // An SDK would wrap a secret input whole, and the plugin could not tell what the program marked secret (provider/schema/build.ts).
    expect(schema.resources["sandbox:index:Sandbox"]!.inputProperties.envVars!.secret).toBeUndefined();
    expect(schema.resources["sandbox:index:Secret"]!.inputProperties.value!.secret).toBeUndefined();
    expect(schema.resources["sandbox:index:Volume"]!.properties.token!.secret).toBe(true);
    expect(schema.config.variables.apiKey!.secret).toBe(true);
    expect(schema.config.variables.accessToken!.secret).toBe(true);
    expect(schema.config.variables.domain!.secret).toBeUndefined();
  });

  test("replaceOnChanges marks exactly the spec's replace paths, nested ones on their type", () => {
    const expected = SPECS.flatMap((spec) =>
      spec.replaceOnChanges.flatMap((path) => {
        if (!path.includes(".")) return [`${tokenOf(spec)} input.${path}`, `${tokenOf(spec)} output.${path}`];
        const [top, leaf] = path.split(".");
        return [`sandbox:index:${top!.charAt(0).toUpperCase()}${top!.slice(1)}.${leaf}`];
      }),
    );
    expect(marked("replaceOnChanges")).toEqual([...new Set(expected)].sort());
    expect(schema.resources["sandbox:index:Volume"]!.inputProperties.name).toMatchObject({ replaceOnChanges: true, willReplaceOnChanges: true });
    expect(schema.resources["sandbox:index:Template"]!.inputProperties.teamID!.replaceOnChanges).toBe(true);
    expect(schema.resources["sandbox:index:Template"]!.inputProperties.public!.replaceOnChanges).toBeUndefined();
    expect(schema.resources["sandbox:index:Sandbox"]!.inputProperties.templateID!.replaceOnChanges).toBe(true);
    expect(schema.resources["sandbox:index:Sandbox"]!.inputProperties.timeout!.replaceOnChanges).toBeUndefined();
    expect(schema.resources["sandbox:index:Sandbox"]!.inputProperties.provision!.replaceOnChanges).toBeUndefined();
    expect(schema.types["sandbox:index:Provision"]!.properties.triggers!.replaceOnChanges).toBe(true);
  });
});

describe("types", () => {
  test("are the object types of the specs, and every reference resolves", () => {
    // A fleet's `SandboxSettings` and its types are the Sandbox's inputs under names of their own (provider/schema/convert.ts: titled types).
    const fleet = ["SandboxSettings", ...["AutoResume", "Lifecycle", "LifecycleOnTimeout", "Network", "NetworkRule", "NetworkRuleTransform", "Provision", "ProvisionCommand", "VolumeMount"].map((n) => `SandboxSettings${n}`)];
    const names = ["AutoResume", "BuildLogEntry", "Content", "FleetMember", "FleetMemberProvisionResult", "Lifecycle", "LifecycleEventInfo", "LifecycleOnTimeout", "Network", "NetworkRule", "NetworkRuleTransform", "Provision", "ProvisionCommand", "ProvisionResult", "SandboxInfo", "SandboxLogEntry", "SandboxMetric", "SandboxMetricOf", ...fleet, "SecretInfo", "SnapshotInfo", "TeamMetric", "TemplateBuildInfo", "TemplateInfo", "TemplateTagGroupInfo", "TemplateTagGroupInfoAssignment", "TemplateTagInfo", "VolumeInfo", "VolumeMount", "WebhookInfo"];
    expect(Object.keys(schema.types)).toEqual(names.map((n) => `sandbox:index:${n}`));
    const local = [...refsIn(schema)].filter((ref) => ref.startsWith("#"));
    expect(local.length).toBeGreaterThan(0);
    for (const ref of local) expect(schema.types, ref).toHaveProperty([ref.replace("#/types/", "")]);
    expect([...refsIn(schema)].filter((ref) => !ref.startsWith("#"))).toEqual(expect.arrayContaining(["pulumi.json#/Any"]));
  });

  test("free-form values are Any, string maps are maps, objects are references", () => {
    const sandbox = schema.resources["sandbox:index:Sandbox"]!.inputProperties;
    expect(schema.types["sandbox:index:Provision"]!.properties.triggers!.$ref).toBe("pulumi.json#/Any");
    expect(sandbox.mcp!.$ref).toBe("pulumi.json#/Any");
    expect(sandbox.metadata).toMatchObject({ type: "object", additionalProperties: { type: "string" } });
    expect(sandbox.volumeMounts).toMatchObject({ type: "array", items: { $ref: "#/types/sandbox:index:VolumeMount" } });
    expect(sandbox.network!.$ref).toBe("#/types/sandbox:index:Network");
  });
});

describe("functions", () => {
  test("are the lookups, with the arguments and results of their shapes", () => {
    expect(Object.keys(schema.functions)).toEqual(Object.keys(LOOKUPS).sort().map((name) => `sandbox:index:${name}`));
    expect(Object.keys(schema.functions)).toContain("sandbox:index:listSnapshots");
    const [get, list] = [schema.functions["sandbox:index:getTemplate"]!, schema.functions["sandbox:index:listSandboxes"]!];
    expect(Object.keys(get.inputs.properties)).toEqual(["alias", "templateID"]);
    expect(get.outputs.required).toContain("templateID");
    expect(list.inputs.properties.metadata).toMatchObject({ type: "object", additionalProperties: { type: "string" } });
    expect(list.outputs.properties.sandboxes).toMatchObject({ type: "array", items: { $ref: "#/types/sandbox:index:SandboxInfo" } });
    // Every list's items are the type its lookup names, and each lookup's description is the table's.
    for (const [name, lookup] of Object.entries(LOOKUPS)) {
      const fn = schema.functions[`sandbox:index:${name}`]!;
      expect(fn.description).toBe(lookup.description);
      for (const [field, type] of Object.entries(lookup.resultTypes)) expect(fn.outputs.properties[field], `${name}.${field}`).toMatchObject({ type: "array", items: { $ref: `#/types/sandbox:index:${type}` } });
      // The result's secret fields, and only those, are marked secret: every SDK keeps them secret.
      const marked = Object.entries(fn.outputs.properties).filter(([, p]) => p.secret).map(([field]) => field);
      expect(marked, name).toEqual([...secretsOf(name as LookupName)].sort());
    }
    expect(schema.functions["sandbox:index:getSandbox"]!.outputs.properties.envdAccessToken).toMatchObject({ type: "string", secret: true });
    expect(schema.functions["sandbox:index:getVolume"]!.outputs.properties.token).toMatchObject({ type: "string", secret: true });
  });
});

describe("conversion", () => {
  test("refuses what Pulumi's type system cannot say, naming the field", () => {
    expect(() => new ObjectTypes("sandbox").property({ anyOf: [{ type: "string" }, { type: "number" }] }, "size", "Disk")).toThrow(
      'Disk.size: no Pulumi type for the JSON Schema {"anyOf":[{"type":"string"},{"type":"number"}]}',
    );
  });

  test("two different shapes never share a type token", () => {
    const types = new ObjectTypes("sandbox");
    types.property({ type: "object", properties: { a: { type: "string" } } }, "network");
    expect(() => types.property({ type: "object", properties: { b: { type: "string" } } }, "network")).toThrow(
      "two different object types would both be named sandbox:index:Network",
    );
  });
});

describe("config variables", () => {
  test("each env var is the one the sdk reads, and the default is the sdk's (the provider's, for maxRetries, which has no env var)", () => {
    expect(Object.keys(schema.config.variables)).toEqual(["accessToken", "apiKey", "apiUrl", "domain", "maxRetries", "requestTimeoutMs", "sandboxUrl"]);
    expect(schema.config.variables.maxRetries).toMatchObject({ type: "integer", default: DEFAULT_MAX_RETRIES });
    expect(schema.config.variables.maxRetries!.defaultInfo).toBeUndefined();
    for (const [name, variable] of Object.entries(schema.config.variables)) {
      expect(variable.description, name).toBeTruthy();
      if (name === "maxRetries") continue;
      const [env] = variable.defaultInfo!.environment;
      const [text, value] = variable.type === "integer" ? ["120000", 120_000] : ["https://from-env.test", "https://from-env.test"];
      const resolved = resolveOptions({}, { [env!]: text }) as unknown as Record<string, unknown>;
      expect(resolved[name], `${name} from ${env}`).toBe(value);
    }
    expect(schema.config.variables.domain!.default).toBe(resolveOptions({}, {}).domain);
    expect(schema.config.variables.requestTimeoutMs!.default).toBe(resolveOptions({}, {}).requestTimeoutMs);
  });
});

describe("the reference of the docs pages", () => {
  const sections = renderReference(schema);
  const sectionOf = (file: string) => sections.find((s) => s.file === file)?.section ?? "";

  test("each page holds its rendering of schema.json, between the markers", () => {
    expect(sections.map((s) => s.file)).toEqual([...Object.keys(schema.resources).map((t) => kindPage(t.split(":")[2]!)), "docs/lookups.md", "docs/configuration.md", "docs/reruns-and-identity.md"]);
    for (const { file, section } of sections) {
      const page = readFileSync(join(root, file), "utf8");
      expect(page.slice(page.indexOf(BEGIN), page.indexOf(END) + END.length), `${file} (run \`npm run gen\`)`).toBe(section);
    }
    expect(sectionOf("docs/volume.md")).toContain("| `name` | string |  |  | yes |  | Name of the volume");
    expect(sectionOf("docs/configuration.md")).toContain("| `sandbox:apiKey` | `E2B_API_KEY` |  | yes |");
    expect(sectionOf("docs/reruns-and-identity.md")).toContain("| `sandbox:index:Template` | `pulumi-nodejs:dynamic/sandbox:Template` | `Template` |");
  });

  test("every kind has its page, and every type a heading on the pages whose tables link to it", () => {
    expect(KINDS.map(kindPage).filter((file) => !sections.some((s) => s.file === file))).toEqual([]);
    expect(kindPage("TemplateTag")).toBe("docs/template-tag.md");
    expect(kindPage("SandboxFleet")).toBe("docs/sandbox-fleet.md");
    for (const { file, section } of sections) {
      const headings = new Set([...section.matchAll(/^#{2,4} (\w+)$/gm)].map((m) => m[1]!.toLowerCase()));
      const linked = [...section.matchAll(/\]\(#(\w+)\)/g)].map((m) => m[1]!);
      expect(linked.filter((anchor) => !headings.has(anchor)), file).toEqual([]);
    }
    const shown = Object.keys(schema.types).filter((token) => sections.some((s) => s.section.includes(`# ${token.split(":")[2]}\n`)));
    expect(shown).toEqual(Object.keys(schema.types));
  });

  test("splicing replaces only the marked section, or appends one", () => {
    const section = `${BEGIN}\nnew\n${END}`;
    expect(spliceReference(`intro\n${BEGIN}\nold\n${END}\noutro\n`, section)).toBe(`intro\n${section}\noutro\n`);
    expect(spliceReference("intro\n\n", section)).toBe(`intro\n\n${section}\n`);
    expect(() => spliceReference(`intro\n${BEGIN}\nold\n`, section, "docs/volume.md")).toThrow(/docs\/volume\.md must hold <!-- BEGIN GENERATED REFERENCE --> once, then <!-- END GENERATED REFERENCE --> once/);
  });

  test("the documented resource types are what the classes register", async () => {
    const types: string[] = [];
    await pulumi.runtime.setMocks(
      { newResource: (args) => (types.push(args.type), { id: `${args.name}-id`, state: args.inputs }), call: () => ({}) },
      "project",
      "stack",
      true,
    );
    // One instance of each registry kind's class: under mocks nothing checks the args, so none are given.
    const exported = classes as unknown as Record<string, new (name: string, args: object) => pulumi.CustomResource>;
    expect(KINDS.filter((kind) => typeof exported[kind] !== "function"), "kinds with no class in provider/classes.ts (run `npm run gen`)").toEqual([]);
    const made = KINDS.map((kind) => new exported[kind]!(kind.toLowerCase(), {}));
    await Promise.all(made.map((r) => new Promise((resolve) => r.urn.apply(resolve))));
    expect(types.sort()).toEqual(Object.keys(schema.resources).map(dynamicType));
  });
});
