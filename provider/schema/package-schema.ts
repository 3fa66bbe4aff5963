/**
 * The shape of schema.json (Pulumi's package schema, the parts this package uses). Its own module:
 * the builder makes one and the reference renderer reads one, and neither imports the other for it.
 */
import type { ObjectTypeSpec, PropertySpec } from "./convert";

export interface ResourceSchema {
  description: string;
  /** Outputs: every input echoed back, plus the spec's outputs. */
  properties: Record<string, PropertySpec>;
  /** Outputs always present. */
  required: string[];
  inputProperties: Record<string, PropertySpec>;
  requiredInputs: string[];
}

/** A function (an invoke): its arguments and its result, each an object's properties. */
export interface FunctionSchema {
  description: string;
  inputs: { properties: Record<string, PropertySpec>; required?: string[] };
  outputs: { properties: Record<string, PropertySpec>; required?: string[] };
}

export interface PackageSchema {
  name: string;
  displayName: string;
  description: string;
  version: string;
  license?: string;
  /** The package's sources (./release.ts). */
  repository: string;
  /** Where the engine downloads the plugin of this version (./release.ts). */
  pluginDownloadURL: string;
  keywords: string[];
  config: { variables: Record<string, PropertySpec> };
  types: Record<string, ObjectTypeSpec>;
  resources: Record<string, ResourceSchema>;
  functions: Record<string, FunctionSchema>;
  /** What each language's code generator needs (./languages.ts). */
  language: Record<string, Record<string, unknown>>;
}
