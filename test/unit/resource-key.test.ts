/**
 * The resource key (provider/resource-key.ts): two stacks of one name and project on two backends (two
 * provider IDs, the same URNs) get different keys, so different auto-names, markers and sandbox lists;
 * a stored key, whatever its form, is kept; and at the preview of a stack's first `up` the key and the
 * names from it are unknown.
 */
import { describe, expect, test } from "vitest";
import { checkInputs } from "../../provider/check";
import { resourceKeyOf, resourceNameOf, stackOf, urnOf } from "../../provider/resource-key";
import { markings } from "../../provider/kinds/sandbox/adoption";
import { UNKNOWN } from "../../provider/spec";
import { templateSpec } from "../../provider/kinds/template/spec";
import { volumeSpec } from "../../provider/kinds/volume/spec";

const URN = "urn:pulumi:dev::proj::x:Team$pulumi-nodejs:dynamic/sandbox:Volume::data";
const ANA = "0b2f6d8e-5c1a-4f3e-9a7b-1d2c3e4f5a6b";
const BEN = "7e9d1c2b-3a4f-4e5d-8c6b-9a8f7e6d5c4b";

describe("resource keys", () => {
  test("a key is the stack instance and the URN, and reads back as both", () => {
    const key = resourceKeyOf(ANA, URN);
    expect(key).toBe(`${ANA}/${URN}`);
    expect(urnOf(key)).toBe(URN);
    expect(resourceNameOf(key)).toBe("data");
    expect(stackOf(key)).toBe(`${ANA}/urn:pulumi:dev::proj`);
  });

  test("keys written before (a bare URN in 0.2, project/stack/name in 0.1) read as they did", () => {
    expect([urnOf(URN), resourceNameOf(URN), stackOf(URN)]).toEqual([URN, "data", "urn:pulumi:dev::proj"]);
    expect([urnOf("proj/dev/data"), resourceNameOf("proj/dev/data"), stackOf("proj/dev/data")]).toEqual([undefined, "data", "proj/dev"]);
  });

  test("with no stack instance the key is the URN alone; with an unknown one it is unknown", () => {
    expect(resourceKeyOf(undefined, URN)).toBe(URN);
    expect(resourceKeyOf("", URN)).toBe(URN);
    expect(resourceKeyOf(UNKNOWN, URN)).toBe(UNKNOWN);
  });

  test("two stacks of one name and project get different auto-names, markers and sandbox lists", () => {
    const [ana, ben] = [resourceKeyOf(ANA, URN), resourceKeyOf(BEN, URN)];
    const volume = (key: string) => checkInputs(volumeSpec, {}, { __resource: key }).inputs!.name as string;
    const template = (key: string) => checkInputs(templateSpec, {}, { dockerfile: "FROM a", __resource: key }).inputs!.alias as string;
    expect(volume(ana)).toMatch(/^data-[0-9a-f]{8}$/);
    expect(volume(ana)).not.toBe(volume(ben));
    expect(template(ana)).not.toBe(template(ben));
    const [a, b] = [markings({ __resource: ana, __generation: 0 }), markings({ __resource: ben, __generation: 0 })];
    expect(a["pulumi-sandbox.resource"]).not.toBe(b["pulumi-sandbox.resource"]);
    expect(a["pulumi-sandbox.stack"]).not.toBe(b["pulumi-sandbox.stack"]);
    // The same stack instance gives the same key on every run: a re-run after a kill adopts what it made.
    expect(volume(resourceKeyOf(ANA, URN))).toBe(volume(ana));
  });

  test("a stored key is kept, whatever the new one: a resource made before this keeps its names", () => {
    const old = checkInputs(volumeSpec, {}, { __resource: URN }).inputs!;
    const now = checkInputs(volumeSpec, old, { __resource: resourceKeyOf(ANA, URN) }).inputs!;
    expect(now).toMatchObject({ name: old.name, __resource: URN, __generation: 0 });
    const atFirstPreview = checkInputs(volumeSpec, old, { __resource: UNKNOWN }).inputs!;
    expect(atFirstPreview).toMatchObject({ name: old.name, __resource: URN });
  });

  test("at the preview of a stack's first up the key and the auto-names are unknown; a chosen name stays", () => {
    expect(checkInputs(volumeSpec, {}, { __resource: UNKNOWN }).inputs).toMatchObject({ name: UNKNOWN, __resource: UNKNOWN, __auto: ["name"] });
    expect(checkInputs(volumeSpec, {}, { name: "mine", __resource: UNKNOWN }).inputs).toMatchObject({ name: "mine", __resource: UNKNOWN });
  });
});
