/**
 * schema.json's `functions`: the lookups (../lookup-shapes.ts), served by the plugin as invokes
 * (../plugin/invoke.ts), so every generated SDK has each of them (`getTemplate`, `listSnapshots`, …). Converted like a
 * resource's properties (./convert.ts); a list of objects gets its item type's name from the lookup
 * (`SandboxInfo`), not from the field (`sandboxes` would make `Sandboxe`, or clash with the resource).
 */
import { z } from "zod";
import { LOOKUPS, secretsOf } from "../lookup-shapes";
import type { JsonSchema, ObjectTypes, PropertySpec } from "./convert";
import type { FunctionSchema } from "./package-schema";

export function functionsOf(pkg: string, types: ObjectTypes): Record<string, FunctionSchema> {
  const out: Record<string, FunctionSchema> = {};
  for (const name of Object.keys(LOOKUPS).sort() as (keyof typeof LOOKUPS)[]) {
    const lookup = LOOKUPS[name];
    const itemTypes: Record<string, string> = lookup.resultTypes;
    out[`${pkg}:index:${name}`] = {
      description: lookup.description,
      inputs: object(z.toJSONSchema(lookup.args, { io: "input" }) as JsonSchema, types, {}),
      outputs: secretFields(object(z.toJSONSchema(lookup.result, { io: "output" }) as JsonSchema, types, itemTypes), secretsOf(name)),
    };
  }
  return out;
}

/** The result's properties with the lookup's secret fields marked: every SDK then keeps them secret. */
function secretFields(outputs: FunctionSchema["inputs"], secrets: readonly string[]): FunctionSchema["inputs"] {
  for (const field of secrets) outputs.properties[field] = { ...outputs.properties[field]!, secret: true };
  return outputs;
}

function object(js: JsonSchema, types: ObjectTypes, itemTypes: Record<string, string>): FunctionSchema["inputs"] {
  const properties: Record<string, PropertySpec> = {};
  for (const key of Object.keys(js.properties ?? {}).sort()) {
    const property = js.properties![key]!;
    const itemType = itemTypes[key];
    if (itemType && property.items) {
      // The items converted as a field named for their type: `sandboxInfo` → the type SandboxInfo.
      const items = types.property(property.items, itemType.charAt(0).toLowerCase() + itemType.slice(1));
      properties[key] = { type: "array", items: { ...(items.$ref ? { $ref: items.$ref } : items) }, ...(property.description ? { description: property.description } : {}) };
    } else properties[key] = types.property(property, key);
  }
  return { properties, ...(js.required?.length ? { required: [...js.required].sort() } : {}) };
}
