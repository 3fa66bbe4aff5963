/**
 * A spec's lists of property names are typed by its own schemas (provider/spec.ts): a typo, or a name
 * of the wrong side (an input where outputs are listed), does not compile. `tsc` checks the
 * `@ts-expect-error` lines below: each must be an error, or the type-check fails. What the lists
 * then mean at run time is checked too.
 */
import { expect, test } from "vitest";
import { z } from "zod";
import { defineSpec } from "../../provider/spec";

const inputs = z.strictObject({ name: z.string(), size: z.number().optional(), options: z.object({ fast: z.boolean() }).optional() });
const outputs = z.object({ probeID: z.string(), token: z.string() });
const base = { kind: "Probe", description: "A probe.", inputs, outputs, secretInputs: [], credentials: [] } as const;

test("the lists name the spec's own inputs and outputs, and decide what replaces", () => {
  const spec = defineSpec({ ...base, inPlace: ["size", "options"], localOnly: ["options.fast"], secretOutputs: ["token"], idOutputs: ["probeID"] });
  expect(spec.replaceOnChanges).toEqual(["name"]);
  expect(spec.idOutputs).toEqual(["probeID"]);
});

test("a name the schemas lack, or of the wrong side, is a compile error", () => {
  // @ts-expect-error: "nmae" is no input
  const typo = defineSpec({ ...base, inPlace: ["nmae"], localOnly: [], secretOutputs: [] });
  // @ts-expect-error: "options.slow" is no field of `options`
  const path = defineSpec({ ...base, inPlace: [], localOnly: ["options.slow"], secretOutputs: [] });
  // @ts-expect-error: ID outputs are outputs, not inputs
  const side = defineSpec({ ...base, inPlace: [], localOnly: [], secretOutputs: [], idOutputs: ["name"] });
  // @ts-expect-error: secretFrom's sources are inputs
  const from = defineSpec({ ...base, inPlace: [], localOnly: [], secretOutputs: [], secretFrom: { token: ["probeID"] } });
  // Built all the same (the types, not `defineSpec`, refuse them): every input not kept replaces.
  expect([typo, path, side, from].map((s) => s.replaceOnChanges)).toEqual([["name", "size", "options"], ["name", "size", "options"], ["name", "size", "options"], ["name", "size", "options"]]);
});
