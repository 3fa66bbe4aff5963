/**
 * Reads the models of a Python client that openapi-python-client generated (`<client>/models/*.py`)
 * back into JSON Schema, for scripts/gen-contract-pyclient.mjs. What such a model keeps of its
 * spec schema: each field's wire name (in `to_dict`), its type annotation (`Union[Unset, …]` when
 * not required, `None` in it when nullable), enums as `class X(str, Enum)`, and a typed
 * `additional_properties` for a map. Bounds, patterns and integer formats are lost in the
 * generation, so the schemas here are looser than the spec's; every object stays open (the
 * client keeps unknown fields), as the spec's do.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Every class of `models/`, by name: `{kind: "enum", values}` or `{kind: "object", fields, additional}`. */
export function readModels(modelsDir) {
  const models = new Map();
  for (const name of readdirSync(modelsDir).filter((n) => n.endsWith(".py") && n !== "__init__.py").sort()) {
    const text = readFileSync(join(modelsDir, name), "utf8");
    for (const [className, model] of classesOf(text, name)) models.set(className, model);
  }
  return models;
}

function classesOf(text, file) {
  const out = [];
  for (const m of text.matchAll(/^class (\w+)(\([^)]*\))?:\n((?:(?:[ \t]+.*|)\n)*)/gm)) {
    const [, name, bases = "", body] = m;
    if (/Enum/.test(bases)) {
      const values = [...body.matchAll(/^ {4}[A-Z0-9_]+ = ("(?:[^"\\]|\\.)*"|-?\d+)$/gm)].map((v) => JSON.parse(v[1]));
      out.push([name, { kind: "enum", values }]);
    } else {
      out.push([name, objectModel(name, body, file)]);
    }
  }
  return out;
}

/** The fields of an attrs model, in declaration order, with their wire names from `to_dict`. */
function objectModel(name, body, file) {
  const code = body.replace(/"""[\s\S]*?"""/g, "");
  const declarations = code.slice(0, code.search(/^ {4}(def |@)/m) >>> 0);
  const fields = [];
  let additional;
  for (const stmt of statements(declarations)) {
    const m = /^(\w+): (.+?)(?: = (.+))?$/s.exec(stmt);
    if (!m) continue;
    const [, py, annotation] = m;
    if (py === "additional_properties") additional = annotation.trim();
    else fields.push({ py, annotation: annotation.trim() });
  }
  const toDict = /def to_dict\(self\)[^\n]*\n([\s\S]*?)\n {4}(?:@|def )/.exec(body)?.[1] ?? "";
  const wire = new Map();
  for (const m of toDict.matchAll(/^\s+"([^"]+)": (\w+),$/gm)) wire.set(m[2], m[1]);
  for (const m of toDict.matchAll(/field_dict\["([^"]+)"\] = (\w+)$/gm)) wire.set(m[2], m[1]);
  for (const f of fields) {
    f.wire = wire.get(f.py);
    if (f.wire === undefined) throw new Error(`${file}: ${name}.${f.py} has no wire name in to_dict`);
  }
  return { kind: "object", fields, additional };
}

/** Top-level statements of a class body (indent 4), a bracketed annotation over lines joined into one. */
export function statements(block) {
  const out = [];
  let current = "";
  let depth = 0;
  for (const line of block.split("\n")) {
    if (depth === 0 && !/^ {4}\S/.test(line)) continue;
    current += (current ? " " : "") + line.trim();
    for (const ch of line) depth += ch === "[" || ch === "(" || ch === "{" ? 1 : ch === "]" || ch === ")" || ch === "}" ? -1 : 0;
    if (depth === 0) {
      out.push(current.replace(/\[\s+/g, "[").replace(/,?\s+\]/g, "]"));
      current = "";
    }
  }
  return out;
}

/** `Union[Unset, list["X"]]` → `{name: "Union", args: [{name: "Unset"}, {name: "list", args: [{name: "X"}]}]}`. */
export function parseAnnotation(text) {
  const tokens = [...text.matchAll(/"([\w.]+)"|'([\w.]+)'|([\w.]+)|([[\],])/g)].map((t) => t[1] ?? t[2] ?? t[3] ?? t[4]);
  let at = 0;
  const type = () => {
    const name = tokens[at++];
    if (name === undefined || "[],".includes(name)) throw new Error(`cannot read the annotation \`${text}\``);
    if (tokens[at] !== "[") return { name };
    at++;
    const args = [type()];
    while (tokens[at] === ",") {
      at++;
      if (tokens[at] !== "]") args.push(type());
    }
    if (tokens[at++] !== "]") throw new Error(`cannot read the annotation \`${text}\``);
    return { name, args };
  };
  const out = type();
  if (at !== tokens.length) throw new Error(`cannot read the annotation \`${text}\``);
  return out;
}

const SCALARS = {
  str: { type: "string" },
  int: { type: "integer" },
  float: { type: "number" },
  bool: { type: "boolean" },
  Any: {},
  "datetime.datetime": { type: "string", format: "date-time" },
  // A date has no format the checker knows; it is a string on the wire.
  "datetime.date": { type: "string" },
  UUID: { type: "string", format: "uuid" },
  None: { type: "null" },
};

/** Converts annotations to JSON Schema, inlining the models they name. */
export class SchemaBuilder {
  constructor(models) {
    this.models = models;
  }

  /** The schema of an annotation, and whether it may be left out (`Unset` in it). */
  annotation(text, seen = []) {
    const ast = parseAnnotation(text);
    const members = ast.name === "Union" ? ast.args : [ast];
    const optional = members.some((m) => m.name === "Unset");
    const kept = members.filter((m) => m.name !== "Unset");
    return { optional, schema: this.union(kept, seen) };
  }

  /** A model by name, inlined. */
  model(name, seen = []) {
    return this.type({ name }, seen);
  }

  union(members, seen) {
    const nonNull = members.filter((m) => m.name !== "None");
    const nullable = nonNull.length < members.length;
    const out = nonNull.length === 1 ? this.type(nonNull[0], seen) : { anyOf: nonNull.map((m) => this.type(m, seen)) };
    if (!nullable) return out;
    if (typeof out.type === "string" && !out.enum && !out.anyOf) return { ...out, type: [out.type, "null"] };
    if (out.enum) return { ...out, type: [out.type, "null"], enum: [...out.enum, null] };
    return { anyOf: [...(out.anyOf ?? [out]), { type: "null" }] };
  }

  type(ast, seen) {
    if (ast.name === "Union") return this.union(ast.args.filter((a) => a.name !== "Unset"), seen);
    if (ast.name === "list") return { type: "array", items: this.type(ast.args[0], seen) };
    if (ast.name === "dict") {
      const value = ast.args[1];
      return !value || value.name === "Any" ? { type: "object" } : { type: "object", additionalProperties: this.type(value, seen) };
    }
    if (SCALARS[ast.name]) return { ...SCALARS[ast.name] };
    const model = this.models.get(ast.name);
    if (!model) throw new Error(`unknown type ${ast.name}`);
    if (seen.includes(ast.name)) throw new Error(`recursive schema ${ast.name}: the contract inlines models and cannot express it`);
    if (model.kind === "enum") {
      const kinds = [...new Set(model.values.map((v) => (typeof v === "number" ? "integer" : "string")))];
      return { type: kinds.length === 1 ? kinds[0] : kinds, enum: model.values };
    }
    return this.object(model, [...seen, ast.name]);
  }

  object(model, seen) {
    const properties = {};
    const required = [];
    for (const f of model.fields) {
      const { optional, schema } = this.annotation(f.annotation, seen);
      properties[f.wire] = schema;
      if (!optional) required.push(f.wire);
    }
    const value = model.additional && parseAnnotation(model.additional).args?.[1];
    return {
      type: "object",
      ...(Object.keys(properties).length ? { properties } : {}),
      ...(required.length ? { required } : {}),
      ...(value && value.name !== "Any" ? { additionalProperties: this.type(value, seen) } : {}),
    };
  }
}
