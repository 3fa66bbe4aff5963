/**
 * provider/class-shapes.ts is generated from the specs (scripts/gen-class-shapes.mjs): the classes read
 * the names of inputs, outputs and secrets there, so that a program does not load zod. It must be
 * exactly what the specs generate: a secret input missing from it would reach state unencrypted.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { CLASS_SHAPES } from "../../provider/class-shapes";
import { SPECS } from "../../provider/kinds";
// @ts-expect-error: plain ESM script, shared with npm run gen
import { CLASS_SHAPES_FILE, renderClassShapes } from "../../scripts/gen-class-shapes.mjs";

const ROOT = join(__dirname, "..", "..");

test("provider/class-shapes.ts is what the specs generate (else run `node scripts/gen-class-shapes.mjs`)", () => {
  expect(readFileSync(join(ROOT, CLASS_SHAPES_FILE as string), "utf8")).toBe(renderClassShapes(SPECS));
});

test("it names every input, output and secret of every spec", () => {
  for (const [kind, spec] of Object.entries(SPECS)) {
    expect(CLASS_SHAPES[spec.kind], kind).toEqual({
      inputs: Object.keys(spec.inputs.shape),
      outputs: Object.keys(spec.outputs.shape),
      secretInputs: spec.secretInputs,
      secretOutputs: spec.secretOutputs,
    });
  }
});

test("a spec with one more secret input renders differently (the drift check can fail)", () => {
  const changed = { ...SPECS, Volume: { ...SPECS.Volume, secretInputs: [...SPECS.Volume.secretInputs, "name"] } };
  const text = renderClassShapes(changed) as string;
  expect(text).not.toBe(renderClassShapes(SPECS));
  expect(text).toContain('secretInputs: ["name"],');
});
