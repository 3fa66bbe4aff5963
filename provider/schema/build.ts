/**
 * The Pulumi package schema (schema.json), built from the resource specs: the same zod schemas that
 * drive `check` and `diff` give the properties, their docs and defaults; the spec's lists give the
 * secret flags (of outputs) and replace flags. `npm run gen` writes it (scripts/gen-schema.mjs); never edit it by hand.
 */
import { z } from "zod";
import { DEFAULT_DOMAIN, DEFAULT_REQUEST_TIMEOUT_MS, REQUEST_TIMEOUT_ENV } from "../../sdk/config";
import { DEFAULT_MAX_RETRIES, type CONFIG_KEYS } from "../config-keys";
import { INTERNAL_INPUTS, type ResourceSpec } from "../spec";
import { KINDS, SPECS as REGISTRY } from "../kinds";
import { ObjectTypes, type JsonSchema, type ObjectTypeSpec, type PropertySpec } from "./convert";
import { functionsOf } from "./functions";
import { languages } from "./languages";
import { releaseOf, type PackageJson } from "./release";
import type { PackageSchema, ResourceSchema } from "./package-schema";

export type { FunctionSchema, PackageSchema, ResourceSchema } from "./package-schema";

export { configTable, renderReference, spliceReference, dynamicType, kindPage, startPage, type ReferenceSection } from "./reference";

export const PACKAGE = "sandbox";
export const SPECS: readonly ResourceSpec[] = KINDS.map((kind) => REGISTRY[kind]);

/** What the schema takes from package.json: its version, description, license and where releases are published (./release.ts). */
export type PackageInfo = PackageJson;

/**
 * Docs of each stack config key, by key: the type makes tsc fail when CONFIG_KEYS gains or loses a key.
 * Each env var is the fallback sdk/config.ts reads (test/unit/schema.test.ts checks that against it).
 */
const CONFIG_DOCS: Record<(typeof CONFIG_KEYS)[keyof typeof CONFIG_KEYS], Omit<PropertySpec, "type"> & { type?: "integer" }> = {
  "sandbox:apiKey": {
    description: "API key of the service (`e2b_…`), sent as `X-API-Key`. Every resource needs it.",
    defaultInfo: { environment: ["E2B_API_KEY"] },
    secret: true,
  },
  "sandbox:accessToken": {
    description: "Access token (`sk_e2b_…`), sent as `Authorization: Bearer`. Only a Template with `buildSystem: \"v1\"` needs it: the legacy build endpoints take only this token.",
    defaultInfo: { environment: ["E2B_ACCESS_TOKEN"] },
    secret: true,
  },
  "sandbox:domain": {
    description: "Domain of the service; the default API and sandbox URLs derive from it.",
    default: DEFAULT_DOMAIN,
    defaultInfo: { environment: ["E2B_DOMAIN"] },
  },
  "sandbox:apiUrl": {
    description: "Base URL of the platform API. Default `https://api.{domain}`.",
    defaultInfo: { environment: ["E2B_API_URL"] },
  },
  "sandbox:sandboxUrl": {
    description:
      "Base URL of the in-sandbox API. When set, every sandbox is reached at this one URL with routing headers " +
      "(as the emulator serves them); otherwise at `https://{port}-{sandboxID}.{domain}`.",
    defaultInfo: { environment: ["E2B_SANDBOX_URL"] },
  },
  "sandbox:requestTimeoutMs": {
    type: "integer",
    description:
      "Deadline of one HTTP request to the service, in milliseconds. A read that outlasts it is repeated once, a write never; " +
      "raise it when the service is slow to answer.",
    default: DEFAULT_REQUEST_TIMEOUT_MS,
    defaultInfo: { environment: [REQUEST_TIMEOUT_ENV] },
  },
  "sandbox:maxRetries": {
    type: "integer",
    description:
      "Times a failed call to the service is tried again where a repeat is safe (a 429, 502, 503 or 504 answer, a dropped connection), " +
      "after a jittered pause doubling from 0.2 s to at most 10 s; 0 tries each call once. Lower it where a pipeline would rather " +
      "fail fast and run again.",
    default: DEFAULT_MAX_RETRIES,
  },
};

export function buildSchema(pkg: PackageInfo): PackageSchema {
  const release = releaseOf(pkg);
  const types = new ObjectTypes(PACKAGE);
  const resources: Record<string, ResourceSchema> = {};
  for (const spec of [...SPECS].sort((a, b) => byName(a.kind, b.kind))) {
    resources[`${PACKAGE}:index:${spec.kind}`] = resource(spec, types);
  }
  const functions = functionsOf(PACKAGE, types);
  return {
    name: PACKAGE,
    displayName: "E2B Sandbox",
    description: pkg.description,
    version: pkg.version,
    ...(pkg.license ? { license: pkg.license } : {}),
    repository: release.repository,
    pluginDownloadURL: release.pluginDownloadURL,
    keywords: ["pulumi", "e2b", "sandbox", "category/cloud"],
    config: { variables: configVariables() },
    types: Object.fromEntries([...types.types].sort(([a], [b]) => byName(a, b))),
    resources,
    functions,
    language: languages(release.goModule),
  };
}

function configVariables(): Record<string, PropertySpec> {
  const variables: Record<string, PropertySpec> = {};
  for (const key of Object.keys(CONFIG_DOCS).sort() as (keyof typeof CONFIG_DOCS)[]) {
    const [namespace, name] = key.split(":");
    if (namespace !== PACKAGE || !name) throw new Error(`config key ${key} is not in the package's namespace "${PACKAGE}:"`);
    const { type = "string", description, default: fallback, defaultInfo, secret } = CONFIG_DOCS[key];
    variables[name] = { type, description, ...(fallback !== undefined ? { default: fallback } : {}), defaultInfo, ...(secret ? { secret } : {}) };
  }
  return variables;
}

function resource(spec: ResourceSpec, types: ObjectTypes): ResourceSchema {
  const inputs = z.toJSONSchema(spec.inputs, { io: "input" }) as JsonSchema;
  const outputs = z.toJSONSchema(spec.outputs, { io: "output" }) as JsonSchema;
  const replace = new Set(spec.replaceOnChanges.filter((path) => !path.includes(".")));
  const flags = (name: string, secret: boolean) => ({ secret, replace: replace.has(name) });

  // No input is marked secret. A generated SDK (and the YAML host) would wrap such an input whole, so
  // the plugin could no longer tell which of its values the program marked secret, the only ones logs
  // hide (a plain `DEBUG: "1"` would hide every "1" of an ID). State holds the spec's secret inputs
  // encrypted all the same: the plugin answers `check` with them wrapped (../plugin/adapter.ts), as
  // the class wraps them; as outputs they are secret here (each SDK's `additionalSecretOutputs`).
  const inputProperties = convert(inputs, types, (name) => flags(name, false));
  const secretOut = new Set([...spec.secretInputs, ...spec.secretOutputs]);
  const outputOnly = convert(outputs, types, (name) => flags(name, secretOut.has(name)));
  for (const [old, current] of Object.entries(spec.renamed ?? {})) {
    const property = inputProperties[old];
    if (!property) throw new Error(`renamed input "${old}" names no input of ${spec.kind}`);
    property.deprecationMessage = `Use ${current}; ${old} is removed in 0.3.`;
  }
  noteSecrecy(spec, inputProperties, outputOnly);
  const echoed = Object.fromEntries(Object.entries(inputProperties).map(([name, p]) => [name, secretOut.has(name) ? secretOf(withoutDefault(p)) : withoutDefault(p)]));
  for (const path of spec.replaceOnChanges) if (path.includes(".")) markNested(path, inputProperties, types.types);

  // Always-present outputs: what zod requires of the outputs, plus every input `check` guarantees
  // (required, defaulted or auto-named), since each input is echoed back as an output.
  const withDefault = Object.keys(inputProperties).filter((name) => inputProperties[name]!.default !== undefined);
  const autoNamed = Object.keys(spec.autoName?.("project/stack/name", 0) ?? {});
  return {
    description: spec.description,
    properties: sorted({ ...echoed, ...outputOnly }),
    required: unique([...(outputs.required ?? []), ...(inputs.required ?? []), ...withDefault, ...autoNamed]),
    inputProperties,
    requiredInputs: unique(inputs.required ?? []),
  };
}

/**
 * The schema's secret flag is all or nothing, so the description says when an output is secret only
 * with an input (`secretFrom`), and which inputs cannot be secret (`idFrom`).
 */
function noteSecrecy(spec: ResourceSpec, inputs: Record<string, PropertySpec>, outputs: Record<string, PropertySpec>): void {
  const add = (p: PropertySpec | undefined, name: string, note: string) => {
    if (!p) throw new Error(`${spec.kind}: secretFrom/idFrom names "${name}", which is not a property`);
    p.description = `${p.description ?? ""} ${note}`.trim();
  };
  for (const [name, from] of Object.entries(spec.secretFrom ?? {})) {
    const names = from.map((k) => `\`${k}\``);
    add(outputs[name], name, `Secret when ${names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : names[0]} is.`);
  }
  for (const name of spec.idFrom ?? []) {
    add(inputs[name], name, `Cannot be a secret: it is part of the ${spec.kind}'s ID, which Pulumi stores in plain text.`);
  }
}

/** The properties of an object schema, flagged, in name order; the provider's own inputs left out. */
function convert(js: JsonSchema, types: ObjectTypes, flagsOf: (name: string) => { secret: boolean; replace: boolean }) {
  const internal = new Set<string>(INTERNAL_INPUTS);
  const out: Record<string, PropertySpec> = {};
  for (const name of Object.keys(js.properties ?? {}).sort()) {
    if (internal.has(name)) continue;
    const { secret, replace } = flagsOf(name);
    out[name] = {
      ...types.property(js.properties![name]!, name),
      ...(secret ? { secret: true } : {}),
      ...(replace ? { replaceOnChanges: true, willReplaceOnChanges: true } : {}),
    };
  }
  return out;
}

/**
 * A dotted replace path (`provision.triggers`) marks the nested property on its object type, which is
 * where Pulumi's codegen looks for nested replaceOnChanges. A path that names nothing is a spec error.
 */
function markNested(path: string, top: Record<string, PropertySpec>, types: Map<string, ObjectTypeSpec>): void {
  const [first, ...rest] = path.split(".");
  let property = top[first!];
  for (const part of rest) {
    const ref = property?.$ref ?? property?.items?.$ref;
    const type = ref?.startsWith("#/types/") ? types.get(ref.slice("#/types/".length)) : undefined;
    property = type?.properties[part];
  }
  if (!property) throw new Error(`replaceOnChanges path "${path}" names no property of the inputs`);
  property.replaceOnChanges = true;
  property.willReplaceOnChanges = true;
}

/** Outputs carry the value the resource has; a default is about inputs only. */
function withoutDefault({ default: _unused, ...rest }: PropertySpec): PropertySpec {
  return rest;
}

/** `p` flagged secret, the flag where `convert` puts it (before the replace flags). */
function secretOf({ replaceOnChanges, willReplaceOnChanges, ...rest }: PropertySpec): PropertySpec {
  return { ...rest, secret: true, ...(replaceOnChanges ? { replaceOnChanges, willReplaceOnChanges } : {}) };
}

function sorted<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => byName(a, b)));
}

function unique(names: string[]): string[] {
  return [...new Set(names)].sort();
}

/** Code-unit order, not the locale's: the file must come out byte-identical on every machine. */
function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
