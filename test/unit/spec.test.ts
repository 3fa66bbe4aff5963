import { describe, expect, test } from "vitest";
import { getPath, type ResourceSpec } from "../../provider/spec";
import { KINDS, SPECS } from "../../provider/kinds";

const specs: ResourceSpec[] = KINDS.map((kind) => SPECS[kind]);
const top = (path: string) => path.split(".")[0]!;

describe.each(specs.map((s) => [s.kind, s] as const))("%s spec", (_kind, spec) => {
  // A deprecated name (`renamed`) is read as its current one and never diffed: not an input of its own.
  const inputs = Object.keys(spec.inputs.shape).filter((k) => !(k in (spec.renamed ?? {})));

  test("every input is in exactly one of replace, in-place and local", () => {
    const replace = spec.replaceOnChanges.filter((p) => !p.includes("."));
    const local = spec.localOnly.filter((p) => !p.includes("."));
    for (const input of inputs) {
      const homes = [replace.includes(input), spec.inPlace.includes(input), local.includes(input)].filter(Boolean);
      expect(homes, `${spec.kind}.${input}`).toHaveLength(1);
    }
    for (const name of [...replace, ...spec.inPlace, ...local]) expect(inputs, `${spec.kind} names ${name}`).toContain(name);
  });

  test("a nested replace or local path sits inside an in-place input and names a field of it", () => {
    const nested = [...(spec.replaceWithin ?? []), ...spec.localOnly.filter((p) => p.includes("."))];
    for (const path of nested) {
      expect(spec.inPlace, path).toContain(top(path));
      const field = path.split(".").slice(1).reduce<unknown>((schema, part) => getPath(schema, `def.innerType.def.shape.${part}`) ?? getPath(schema, `def.shape.${part}`), spec.inputs.shape[top(path)]);
      expect(field, `${spec.kind}.${path} names a field`).toBeDefined();
    }
  });

  test("each deprecated name names an input of the shape, and the input that replaced it", () => {
    for (const [old, current] of Object.entries(spec.renamed ?? {})) {
      expect(Object.keys(spec.inputs.shape)).toContain(old);
      expect(inputs).toContain(current);
    }
  });

  test("unique names, computed and secret inputs name real inputs; it needs an API key at least", () => {
    for (const name of [...(spec.uniqueNames ?? []), ...(spec.computed ?? []), ...spec.secretInputs]) expect(inputs).toContain(name);
    expect(spec.credentials).toContain("apiKey");
  });
});
