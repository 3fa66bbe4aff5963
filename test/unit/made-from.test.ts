/**
 * provider/runtime/made-from.ts: a difference of two field-digest lists names the fields that
 * changed, or says the API key changed when the two were keyed differently (every field would differ).
 */
import { expect, test } from "vitest";
import { ANOTHER_KEY, differingFields } from "../../provider/runtime/made-from";

test("the fields whose digests differ, a field in one only included", () => {
  expect(differingFields("~key:aaaa0000,envVars:11111111,templateID:22222222", "~key:aaaa0000,envVars:33333333,templateID:22222222")).toEqual(["envVars"]);
  expect(differingFields("~key:aaaa0000,templateID:22222222", "~key:aaaa0000,envVars:33333333,templateID:22222222")).toEqual(["envVars"]);
});

test("digests keyed with another API key say so, instead of naming every field", () => {
  expect(differingFields("~key:aaaa0000,envVars:11111111", "~key:bbbb0000,envVars:33333333")).toBe(ANOTHER_KEY);
  expect(ANOTHER_KEY).toEqual(["the API key"]);
});

test("a digest list from before the key entry compares by field alone", () => {
  expect(differingFields("envVars:11111111,templateID:22222222", "~key:bbbb0000,envVars:11111111,templateID:22222222")).toEqual([]);
  expect(differingFields("envVars:11111111", "~key:bbbb0000,envVars:33333333")).toEqual(["envVars"]);
});
