/**
 * provider/class-shapes.ts and provider/classes.ts are generated from the registry of kinds
 * (scripts/gen-class-shapes.mjs): the classes read the names of inputs, outputs, secrets and ID outputs
 * there, so that a program does not load zod. They must be exactly what the specs generate: a secret
 * input missing from it would reach state unencrypted, and a kind without its class could not be used.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import * as pkg from "../../provider";
import { CLASS_SHAPES } from "../../provider/class-shapes";
import { SPECS } from "../../provider/kinds";
// @ts-expect-error: plain ESM script, shared with npm run gen
import { CLASS_SHAPES_FILE, CLASSES_FILE, renderClasses, renderClassShapes } from "../../scripts/gen-class-shapes.mjs";

const ROOT = join(__dirname, "..", "..");

test("provider/class-shapes.ts is what the specs generate (else run `node scripts/gen-class-shapes.mjs`)", () => {
  expect(readFileSync(join(ROOT, CLASS_SHAPES_FILE as string), "utf8")).toBe(renderClassShapes(SPECS));
  expect(readFileSync(join(ROOT, CLASSES_FILE as string), "utf8")).toBe(renderClasses(SPECS));
});

test("the package exports one class per kind, with its `get`", () => {
  for (const kind of Object.keys(SPECS)) {
    const cls = (pkg as Record<string, unknown>)[kind] as { get?: unknown } | undefined;
    expect(typeof cls, kind).toBe("function");
    expect(typeof cls?.get, kind).toBe("function");
  }
});

test("it names every input, output and secret of every spec", () => {
  for (const [kind, spec] of Object.entries(SPECS)) {
    expect(CLASS_SHAPES[spec.kind], kind).toEqual({
      inputs: Object.keys(spec.inputs.shape),
      outputs: Object.keys(spec.outputs.shape),
      secretInputs: spec.secretInputs,
      secretOutputs: spec.secretOutputs,
      idOutputs: spec.idOutputs ?? [],
    });
  }
});

test("a spec with one more secret input renders differently (the drift check can fail)", () => {
  const changed = { ...SPECS, Volume: { ...SPECS.Volume, secretInputs: [...SPECS.Volume.secretInputs, "name"] } };
  const text = renderClassShapes(changed) as string;
  expect(text).not.toBe(renderClassShapes(SPECS));
  expect(text).toContain('secretInputs: ["name"],');
});
