/**
 * A fleet's `check`: its own fields by its spec, then each member's Sandbox inputs (the fleet's
 * `sandbox` with the member's own over it) by the Sandbox kind's own check, so a member is refused at
 * preview for what would refuse a Sandbox, named as the program wrote it: `members["ada"].timeoutSeconds: ...`.
 *
 * The spec's `members` is typed (schema.json and the class show a Sandbox's inputs per member), but its
 * rules are the Sandbox's, applied to the merged inputs: so the fleet's own pass takes each member as
 * any object, and the member's pass names the member.
 */
import { z } from "zod";
import { checkInputs, type CheckFailure, type CheckOutcome } from "../../check";
import { checkedMember, memberKeys, memberPath, writtenInputs, type FleetState } from "./members";
import { MemberKey, sandboxFleetSpec } from "./spec";

type Obj = Record<string, unknown>;

/** Members reported one by one; past this many the rest are counted, so one typo in `sandbox` does not print a thousand lines. */
const MEMBERS_SHOWN = 10;

const AnyMembers = z.record(MemberKey, z.record(z.string(), z.unknown(), { error: "must be an object of the Sandbox inputs the member overrides ({} for none)" }), {
  error: "must be an object: each member's key to the Sandbox inputs it overrides ({} for none)",
}).optional();

/** The fleet's spec with each member taken as any object: the members' own pass checks them. */
const FLEET_FIELDS = { ...sandboxFleetSpec, inputs: sandboxFleetSpec.inputs.extend({ members: AnyMembers }) };

const failure = (path: string, reason: string): CheckFailure => ({ property: "", reason: `${path}: ${reason}` });

/** Each member's failures, by the Sandbox's check of its merged inputs; `count` members are one, checked as `sandbox`. */
function memberFailures(inputs: FleetState): CheckFailure[] {
  const keys = memberKeys(inputs);
  if (!keys || keys.length === 0) return [];
  const identical = typeof inputs.count === "number";
  const failing: { key: string; reasons: string[] }[] = [];
  for (const key of identical ? keys.slice(0, 1) : keys) {
    const { failures } = checkedMember(writtenInputs(inputs, key));
    if (failures?.length) failing.push({ key, reasons: failures });
  }
  // A Sandbox's failure reads `timeoutSeconds: must be ...`: put under the member's path, it names both.
  const shown = failing.slice(0, MEMBERS_SHOWN).flatMap(({ key, reasons }) =>
    reasons.map((reason) => ({ property: "", reason: `${identical ? "sandbox" : memberPath(key)}.${reason}` })));
  const more = failing.length - MEMBERS_SHOWN;
  return more > 0 ? [...shown, failure("members", `${more} more member${more === 1 ? "" : "s"} fail the Sandbox's rules too; fix the ones above first`)] : shown;
}

export function checkFleet(olds: Obj, news: Obj): CheckOutcome {
  const outcome = checkInputs(FLEET_FIELDS, olds, news);
  if (!outcome.inputs) return outcome;
  const failures = memberFailures(outcome.inputs as FleetState);
  return failures.length ? { failures } : outcome;
}
