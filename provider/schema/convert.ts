/**
 * JSON Schema, as `z.toJSONSchema` writes it for a spec, rewritten into Pulumi's package-schema
 * shapes: primitives stay, arrays keep `items`, records become maps (`additionalProperties`), objects
 * with properties become named types under `types` (referenced by `$ref`), and anything unconstrained
 * (`z.unknown()`, a record of unknowns) becomes `pulumi.json#/Any`. Validation rules (patterns, ranges,
 * refinements) have no place in a Pulumi schema and are dropped: `check` enforces them.
 */

/** The part of a JSON Schema node read here. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  /**
   * A name the spec gives an object type (zod `.meta({ title })`), where the field's would not do: a
   * fleet's `sandbox` holds a Sandbox's inputs, and a type named for the field would be `Sandbox`, the
   * resource's own name. Its fields' types are named after it (`SandboxSettingsNetwork`): a Sandbox's
   * own carry its nested replace flags, which would replace a fleet whole.
   */
  title?: string;
  enum?: unknown[];
  description?: string;
  default?: unknown;
}

/** A Pulumi type reference: primitive, array, map or named type. */
export interface TypeRef {
  type?: "string" | "integer" | "number" | "boolean" | "array" | "object";
  items?: TypeRef;
  additionalProperties?: TypeRef;
  $ref?: string;
}

/** A Pulumi property: a type reference plus its docs and flags. */
export interface PropertySpec extends TypeRef {
  description?: string;
  default?: string | number | boolean;
  defaultInfo?: { environment: string[] };
  secret?: boolean;
  /** Pulumi SDK generators turn this into the resource's `replaceOnChanges` option. */
  replaceOnChanges?: boolean;
  /** Documents that the provider's own `diff` replaces the resource on a change. */
  willReplaceOnChanges?: boolean;
  /** Set on a deprecated name: the SDK generators turn it into a deprecation warning. */
  deprecationMessage?: string;
}

export interface ObjectTypeSpec {
  type: "object";
  description?: string;
  properties: Record<string, PropertySpec>;
  required?: string[];
}

export const ANY: TypeRef = { $ref: "pulumi.json#/Any" };

const PRIMITIVES = new Set(["string", "integer", "number", "boolean"]);

/** Object types met while converting, by token; the same shape met twice is one type. */
export class ObjectTypes {
  readonly types = new Map<string, ObjectTypeSpec>();

  /** `pkg`: the package name, the first part of every type token (`sandbox:index:Network`). */
  constructor(private readonly pkg: string) {}

  /** The property `name` of an object (a resource's when `owner` is absent, else of type `owner`). */
  property(js: JsonSchema, name: string, owner?: string): PropertySpec {
    const node = unwrapNullable(js);
    const out: PropertySpec = { ...this.typeOf(node, name, owner, false, js.description) };
    const choices = node.enum?.map((v) => `\`${String(v)}\``).join(", ");
    const description = [js.description ?? node.description, choices && `One of ${choices}.`].filter(Boolean).join(" ");
    if (description) out.description = description;
    const fallback = js.default ?? node.default;
    if (typeof fallback === "string" || typeof fallback === "number" || typeof fallback === "boolean") out.default = fallback;
    return out;
  }

  private typeOf(js: JsonSchema, name: string, owner: string | undefined, item: boolean, description?: string): TypeRef {
    const node = unwrapNullable(js);
    if (typeof node.type === "string" && PRIMITIVES.has(node.type)) return { type: node.type as TypeRef["type"] };
    if (node.type === "array" && node.items) {
      // The list's description is about the list; its items get their own, naming the list.
      return { type: "array", items: this.typeOf(node.items, name, owner, true, `An item of the \`${name}\` list.`) };
    }
    if (node.type === "object" && node.properties) return this.objectType(node, node.title ?? typeName(name, owner, item), description);
    if (node.type === "object" && isUnconstrained(node.additionalProperties)) return ANY;
    if (node.type === "object" && typeof node.additionalProperties === "object") {
      return { type: "object", additionalProperties: this.typeOf(node.additionalProperties, name, owner, true) };
    }
    if (isUnconstrained(node)) return ANY;
    throw new Error(`${owner ? `${owner}.` : ""}${name}: no Pulumi type for the JSON Schema ${JSON.stringify(node)}`);
  }

  private objectType(js: JsonSchema, name: string, description: string | undefined): TypeRef {
    const token = `${this.pkg}:index:${name}`;
    const properties: Record<string, PropertySpec> = {};
    for (const key of Object.keys(js.properties ?? {}).sort()) properties[key] = this.property(js.properties![key]!, key, name);
    const spec: ObjectTypeSpec = { type: "object", ...(description ? { description } : {}), properties };
    if (js.required?.length) spec.required = [...js.required].sort();
    const seen = this.types.get(token);
    if (!seen) this.types.set(token, spec);
    else if (JSON.stringify([seen.properties, seen.required]) !== JSON.stringify([spec.properties, spec.required])) {
      throw new Error(`two different object types would both be named ${token}; rename one of the fields that hold them`);
    }
    return { $ref: `#/types/${token}` };
  }
}

/**
 * A type's name comes from the field that holds it: `network` → Network, the items of `volumeMounts`
 * → VolumeMount (a list's name, singular), `commands` inside Provision → ProvisionCommand.
 */
export function typeName(field: string, owner: string | undefined, item: boolean): string {
  const base = field.charAt(0).toUpperCase() + field.slice(1);
  const name = item && base.endsWith("s") ? base.slice(0, -1) : base;
  return owner && !name.startsWith(owner) ? owner + name : name;
}

/** Pulumi has no null type (every value may be absent), so `X | null` is just X. */
function unwrapNullable(js: JsonSchema): JsonSchema {
  if (Array.isArray(js.type)) {
    const types = js.type.filter((t) => t !== "null");
    return types.length === 1 ? { ...js, type: types[0] } : js;
  }
  const variants = js.anyOf?.filter((v) => v.type !== "null");
  if (!js.anyOf || variants?.length !== 1) return js;
  return { ...variants[0], ...(js.description ? { description: js.description } : {}) };
}

function isUnconstrained(js: JsonSchema | boolean | undefined): boolean {
  if (js === true) return true;
  if (js === undefined || js === false) return false;
  return !js.type && !js.anyOf && !js.enum && !js.properties && !js.items;
}
