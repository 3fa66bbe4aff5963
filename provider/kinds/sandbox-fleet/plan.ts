/**
 * What a fleet's update does to each member, by the Sandbox's own rules: a member asked for that has
 * no sandbox is created; one no longer asked for is deleted; one whose Sandbox inputs changed is updated
 * in place, or replaced inside the fleet, as the Sandbox's diff says; one whose provisioning failed is
 * updated (the Sandbox's update runs it again). The fleet's diff says the same, path by path, so a
 * preview names each member that changes.
 */
import { changedFields, diffInputs, type DiffOutcome, type PropertyChange } from "../../diff";
import { sandboxSpec } from "../sandbox/spec";
import { own, recordOf } from "./member-record";
import { memberInputs, memberKeys, memberPath, oldMemberInputs, writtenInputs, type FleetState } from "./members";

type Obj = Record<string, unknown>;

export interface MemberChange {
  key: string;
  /** The Sandbox inputs that changed (none: only its provisioning is to be run again). */
  fields: string[];
  /** Whether the Sandbox's rules replace it (a new sandbox made, then the old one deleted). */
  replace: boolean;
  /** Its inputs now, checked. */
  inputs: Obj;
}

export interface FleetPlan {
  /** Members asked for that have no sandbox: new ones, and ones that failed to be made or are gone. */
  creates: string[];
  changes: MemberChange[];
  /** Members that have a sandbox and are no longer asked for. */
  deletes: string[];
  /** Members left as they are. */
  unchanged: number;
}

/** The plan from `olds` (the state) to `news` (the checked inputs); undefined while the members are unknown (a preview). */
export function planOf(olds: FleetState, news: FleetState, opts: { failedAgain: boolean } = { failedAgain: true }): FleetPlan | undefined {
  const keys = memberKeys(news);
  if (!keys) return undefined;
  const made = olds.sandboxes ?? {};
  const asked = new Set(keys);
  const plan: FleetPlan = { creates: [], changes: [], deletes: Object.keys(made).filter((k) => !asked.has(k)), unchanged: 0 };
  for (const key of keys) {
    const entry = own(made, key);
    if (!entry) {
      plan.creates.push(key);
      continue;
    }
    // As a Sandbox's state holds it: `state` is what the service last reported (a pause made elsewhere,
    // seen by a refresh, is a change when the inputs ask for `running`).
    const old = { ...oldMemberInputs(olds, key), state: entry.state };
    const now = memberInputs(writtenInputs(news, key));
    const diff = diffInputs(sandboxSpec, old, now);
    if (diff.changes || (opts.failedAgain && entry.provisioned === false)) {
      plan.changes.push({ key, fields: changedFields(sandboxSpec, old, now), replace: diff.replaces.length > 0, inputs: now });
    } else plan.unchanged++;
  }
  return plan;
}

/** Whether field `field` of member `key` is its own (given by the member, now or before), else the fleet's `sandbox`. */
function ownField(olds: FleetState, news: FleetState, key: string, field: string): boolean {
  return own(olds.members, key)?.[field] !== undefined || own(news.members, key)?.[field] !== undefined || recordOf(olds, key).madeFrom !== undefined;
}

/** The paths a plan changes, as the program writes them: `members["ada"].envVars`, `sandbox.timeoutSeconds`, `count`. */
function pathsOf(olds: FleetState, news: FleetState, plan: FleetPlan): Record<string, PropertyChange> {
  const paths: Record<string, PropertyChange> = {};
  const counted = typeof news.count === "number" || typeof olds.count === "number";
  // A member of `count`, or one gone since (refresh dropped it), has no path of its own: `count` says it.
  for (const key of plan.creates) {
    if (own(news.members, key) !== undefined) paths[memberPath(key)] = "add";
    else paths.count = "update";
  }
  for (const key of plan.deletes) {
    if (counted && own(olds.members, key) === undefined) paths.count = "update";
    else paths[memberPath(key)] = "delete";
  }
  for (const { key, fields } of plan.changes) {
    for (const field of fields) paths[ownField(olds, news, key, field) ? `${memberPath(key)}.${field}` : `sandbox.${field}`] = "update";
  }
  if (olds.count !== news.count && (typeof olds.count === "number" || typeof news.count === "number")) paths.count = "update";
  return paths;
}

/**
 * The fleet's diff: never a replacement (each member's is made inside the fleet), and each changed
 * path named. `maxParallel` changes nothing remotely, so it alone is no change (the spec's `localOnly`).
 */
export function diffFleet(olds: Obj, news: Obj): DiffOutcome {
  const plan = planOf(olds as FleetState, news as FleetState, { failedAgain: false });
  const detailedDiff = plan ? pathsOf(olds as FleetState, news as FleetState, plan) : { members: "update" as const };
  const diffs = [...new Set(Object.keys(detailedDiff).map((path) => path.split(/[.[]/)[0]!))].sort();
  return { changes: diffs.length > 0, replaces: [], deleteBeforeReplace: false, diffs, detailedDiff };
}

/** The update's plan in a line: what it does to how many members, and how many a change of `sandbox` reaches. */
export function describePlan(plan: FleetPlan, olds: FleetState, news: FleetState): string {
  const replaced = plan.changes.filter((c) => c.replace).length;
  const parts = [
    `${plan.creates.length} to create`, `${plan.changes.length - replaced} to update in place`, `${replaced} to replace`,
    `${plan.deletes.length} to delete`, `${plan.unchanged} unchanged`,
  ];
  const shared = new Map<string, number>();
  for (const { key, fields } of plan.changes) {
    for (const field of fields) if (!ownField(olds, news, key, field)) shared.set(field, (shared.get(field) ?? 0) + 1);
  }
  const reach = [...shared].map(([field, n]) => `sandbox.${field} reaches ${n} member${n === 1 ? "" : "s"}`);
  return `members: ${parts.join(", ")}${reach.length ? `; ${reach.join(", ")}` : ""}`;
}
