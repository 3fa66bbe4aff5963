/**
 * A spec's `derived` inputs, and the `checked` ones it declares with more than a program gives (a
 * Volume's content manifest), are filled in by `check` through the kind's `derive`
 * (provider/kinds/<kind>/index.ts). Both lists name the same kinds: a spec that declares a derived
 * input nobody computes would leave it empty at every preview, and a derivation for a kind that
 * declares none would add an input its spec lacks.
 */
import { expect, test } from "vitest";
import { DERIVING_KINDS } from "../../provider/runtime";
import { SPECS } from "../../provider/kinds";

test("the kinds whose check derives inputs are the kinds whose spec declares derived inputs", () => {
  const declaring = Object.entries(SPECS)
    .filter(([, spec]) => (spec.derived ?? []).length > 0 || Object.keys(spec.checked?.shape ?? {}).length > 0)
    .map(([kind]) => kind);
  expect(declaring).not.toEqual([]);
  expect([...DERIVING_KINDS].sort()).toEqual(declaring.sort());
});
