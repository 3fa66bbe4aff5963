// The registry pages (docs/_index.md, docs/installation-configuration.md) in the layout the Pulumi Registry
// reads, showing code that works: each example block is a file of examples/ that the e2e suite deploys
// (the drift test proves the block is the file); the YAML one is also checked against schema.json (its
// types, properties and `${...}` references), so a schema change that breaks it fails here, before e2e. The config page names every key
// and every environment variable the provider reads.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
// @ts-expect-error: js-yaml ships no types (the contract generator uses it too)
import { load } from "js-yaml";
import { describe, expect, test } from "vitest";
import { CONFIG_KEYS } from "../../provider/config-keys";
import type { PackageSchema } from "../../provider/schema/build";
import type { PropertySpec } from "../../provider/schema/convert";
// @ts-expect-error: plain ESM script, shared with npm run gen
import { DOC_FILES, examplesOf } from "../../scripts/gen-docs.mjs";

const root = join(__dirname, "..", "..");
const read = (path: string) => readFileSync(join(root, path), "utf8");
const schema = JSON.parse(read("schema.json")) as PackageSchema;
const index = read("docs/_index.md");
const install = read("docs/installation-configuration.md");

function frontMatter(page: string): Record<string, unknown> {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(page);
  if (!m) throw new Error("the page does not open with a --- front matter block ---");
  return load(m[1]!) as Record<string, unknown>;
}

describe("the registry pages", () => {
  test.each(DOC_FILES as string[])("%s has the front matter the registry reads (title, meta_desc, layout: package)", (file) => {
    const fm = frontMatter(read(file));
    expect(typeof fm.title).toBe("string");
    expect(String(fm.meta_desc).length).toBeGreaterThan(40);
    expect(fm.layout).toBe("package");
  });

  test("the overview has one example per language, each in its chooser tab", () => {
    const chooser = /\{\{< chooser language "([^"]+)" >\}\}/.exec(index);
    expect(chooser?.[1]).toBe("typescript,python,go,yaml");
    const tabs = [...index.matchAll(/\{\{% choosable language (\w+) %\}\}\s*<!-- BEGIN EXAMPLE (\S+) -->\n```(\w+)\n/g)];
    expect(tabs.map((t) => [t[1], t[3]])).toEqual(["typescript", "python", "go", "yaml"].map((l) => [l, l]));
    expect(tabs.map((t) => t[2])).toEqual(examplesOf(index));
  });

  test("every example is a program the e2e suite deploys", () => {
    const e2e = readdirSync(join(root, "test", "e2e")).filter((f) => f.endsWith(".test.ts")).map((f) => read(join("test", "e2e", f)));
    const programs = (examplesOf(index) as string[]).map((p) => p.split("/")[1]!);
    expect(programs).toHaveLength(4);
    for (const dir of programs) expect(e2e.some((text) => text.includes(`"${dir}"`)), `no e2e test names examples/${dir}`).toBe(true);
  });

  test("the config page names every stack config key and every environment variable the sdk reads", () => {
    for (const key of Object.values(CONFIG_KEYS)) expect(install).toContain(`\`${key}\``);
    const sources = read("sdk/config.ts");
    const envs = new Set([...sources.matchAll(/\b(E2B_[A-Z_]+|PULUMI_SANDBOX_[A-Z_]+)\b/g)].map((m) => m[1]!));
    expect(envs.size).toBeGreaterThanOrEqual(7);
    for (const env of envs) expect(install, env).toContain(`\`${env}`);
  });
});

// ---- the YAML example against schema.json ----

type Yaml = { resources: Record<string, { type: string; properties?: Record<string, unknown> }>; config?: Record<string, unknown>; outputs?: Record<string, string> };
const yamlPath = (examplesOf(index) as string[]).find((p) => p.endsWith(".yaml"))!;
const program = load(read(yamlPath)) as Yaml;
const tokenOf = (type: string) => type.replace(/^sandbox:(\w+)$/, "sandbox:index:$1");

/** Problems of `value` as `spec` says: unknown keys, missing required ones, a wrong kind of value. */
function problems(path: string, value: unknown, properties: Record<string, PropertySpec>, required: readonly string[] = []): string[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [`${path}: must be an object`];
  const found = Object.entries(value).flatMap(([key, v]) => (properties[key] ? check(`${path}.${key}`, v, properties[key]) : [`${path}.${key}: not in schema.json`]));
  return [...found, ...required.filter((r) => !(r in value)).map((r) => `${path}.${r}: required`)];
}

function check(path: string, value: unknown, spec: PropertySpec): string[] {
  if (typeof value === "string" && value.startsWith("${")) return [];
  const ref = (spec as { $ref?: string }).$ref;
  if (ref) {
    const type = schema.types[ref.replace("#/types/", "")]!;
    return problems(path, value, type.properties ?? {}, type.required);
  }
  if (spec.type === "array") return Array.isArray(value) ? value.flatMap((v, i) => check(`${path}[${i}]`, v, spec.items as PropertySpec)) : [`${path}: must be a list`];
  if (spec.type === "object") return typeof value === "object" && value !== null ? [] : [`${path}: must be a map`];
  const kinds: Record<string, string> = { string: "string", integer: "number", number: "number", boolean: "boolean" };
  return spec.type && typeof value !== kinds[spec.type] ? [`${path}: must be a ${spec.type}`] : [];
}

describe(`the YAML example (${yamlPath})`, () => {
  test("its resources are the schema's, with its inputs, each required one given", () => {
    const found = Object.entries(program.resources).flatMap(([name, r]) => {
      const resource = schema.resources[tokenOf(r.type)];
      if (!resource) return [`${name}: type ${r.type} is not a resource of schema.json`];
      return problems(name, r.properties ?? {}, resource.inputProperties, resource.requiredInputs);
    });
    expect(found).toEqual([]);
    expect(new Set(Object.values(program.resources).map((r) => r.type)).size).toBeGreaterThanOrEqual(3);
  });

  test("each ${resource.output} names a resource of the program and one of its outputs, each ${name} a config value", () => {
    const refs = [...read(yamlPath).matchAll(/\$\{([\w-]+)(?:\.(\w+))?\}/g)];
    expect(refs.length).toBeGreaterThan(3);
    const bad = refs.filter(([, name, prop]) => {
      const r = program.resources[name!];
      if (!r) return prop !== undefined || !(name! in (program.config ?? {}));
      return prop === undefined || !schema.resources[tokenOf(r.type)]?.properties[prop];
    });
    expect(bad.map((m) => m[0])).toEqual([]);
  });
});
