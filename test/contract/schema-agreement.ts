/**
 * Compares a zod wire schema (as JSON Schema, `z.toJSONSchema(..., { io: "input" })`) with the
 * contract's schema of the same body, field by field: a field the spec requires must be declared and
 * required in zod; zod must not require what the spec leaves optional; a field the spec lets be null
 * must accept null; zod must not declare fields the spec does not have; and the JSON types must meet.
 */

/** A JSON Schema node, loosely typed: both sides are plain JSON. */
export type Node = Record<string, unknown>;

/** One disagreement, at a JSON path of the body. */
export interface Disagreement {
  path: string;
  problem: string;
}

/** What to compare: a zod schema's JSON Schema against the spec's. */
export function disagreements(zod: Node, spec: Node, path = ""): Disagreement[] {
  const z = unwrap(zod);
  const s = unwrap(spec);
  const out: Disagreement[] = [];
  if (s.nullable && !z.nullable) out.push({ path, problem: "the spec allows null; zod does not" });
  const zt = types(z.node);
  const st = types(s.node);
  if (zt && st && ![...st].some((t) => zt.has(t) || (t === "integer" && zt.has("number")))) {
    out.push({ path, problem: `type ${[...st].join("|")} in the spec, ${[...zt].join("|")} in zod` });
    return out;
  }
  const zp = props(z.node);
  const sp = props(s.node);
  if (zp && sp) out.push(...objects(z.node, s.node, zp, sp, path));
  const zi = z.node.items as Node | undefined;
  const si = s.node.items as Node | undefined;
  if (zi && si) out.push(...disagreements(zi, si, `${path}/*`));
  const za = z.node.additionalProperties;
  const sa = s.node.additionalProperties;
  if (isNode(za) && isNode(sa)) out.push(...disagreements(za, sa, `${path}/{key}`));
  return out;
}

function objects(z: Node, s: Node, zp: Record<string, Node>, sp: Record<string, Node>, path: string): Disagreement[] {
  const out: Disagreement[] = [];
  const zr = new Set((z.required as string[] | undefined) ?? []);
  const sr = new Set((s.required as string[] | undefined) ?? []);
  for (const key of sr) {
    if (!(key in zp)) out.push({ path: `${path}/${key}`, problem: "required by the spec; zod does not declare it" });
    else if (!zr.has(key)) out.push({ path: `${path}/${key}`, problem: "required by the spec; optional in zod" });
  }
  for (const key of zr) {
    if (key in sp && !sr.has(key)) out.push({ path: `${path}/${key}`, problem: "optional in the spec; required in zod" });
  }
  for (const key of Object.keys(zp)) {
    if (!(key in sp)) out.push({ path: `${path}/${key}`, problem: "declared in zod; the spec has no such field" });
    else out.push(...disagreements(zp[key]!, sp[key]!, `${path}/${key}`));
  }
  return out;
}

/** Strips a `null` alternative (`anyOf [X, {type: null}]`, `type: [X, "null"]`), noting it. */
function unwrap(node: Node): { node: Node; nullable: boolean } {
  const alternatives = (node.anyOf ?? node.oneOf) as Node[] | undefined;
  if (alternatives) {
    const rest = alternatives.filter((a) => a.type !== "null");
    const nullable = rest.length < alternatives.length;
    if (rest.length === 1) {
      const inner = unwrap(rest[0]!);
      return { node: inner.node, nullable: nullable || inner.nullable };
    }
    return { node, nullable };
  }
  if (Array.isArray(node.type) && node.type.includes("null")) {
    const type = node.type.filter((t) => t !== "null");
    return { node: { ...node, type: type.length === 1 ? type[0] : type }, nullable: true };
  }
  if (Array.isArray(node.enum) && node.enum.includes(null)) return { node, nullable: true };
  return { node, nullable: false };
}

function types(node: Node): Set<string> | undefined {
  if (typeof node.type === "string") return new Set([node.type]);
  if (Array.isArray(node.type)) return new Set(node.type as string[]);
  return undefined;
}

function props(node: Node): Record<string, Node> | undefined {
  return isNode(node.properties) ? (node.properties as Record<string, Node>) : undefined;
}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
