/**
 * SandboxFleet create/read/update/delete. The map of calls is in ./spec.ts; each member's calls are the
 * Sandbox kind's handlers (./member-ops.ts), run up to `maxParallel` at once (./pool.ts).
 *
 * One listing of the stack's sandboxes answers every member's look for what an interrupted run made
 * (../sandbox/adoption.ts `oneListing`), however long the fleet's operation takes; an update that makes
 * only a few members of many looks each up by its marker instead (`lookupFor`). A create holds its
 * members' claims back until all are made (../sandbox/claim.ts): the re-run of a killed create checks the
 * fleet anew, with another nonce, and must find the members the killed run made unclaimed, to adopt
 * them; when the engine is gone (the run was killed) the create starts no further member and claims
 * nothing (../../runtime/operation.ts).
 */
import { PartialCreateError } from "../../runtime/partial";
import { identityDigest } from "../identity";
import { resourceLogger } from "../../runtime/log";
import { currentSignal, engineGone } from "../../runtime/operation";
import type { ResourceHandlers } from "../../runtime/handlers";
import { byMarker, LIST_PAGE, oneListing } from "../sandbox/adoption";
import { claimHeld, holdingClaims, type HeldClaim } from "../sandbox/claim";
import { incarnationOf, own, packed, recordsOf, withoutRecords, type MemberRecord } from "./member-record";
import { asItWas, changeMember, createMember, deleteMember, type MemberOutcome } from "./member-ops";
import { isReady, memberInputs, memberKeys, memberPath, nextGeneration, oldMemberInputs, writtenInputs, type FleetState } from "./members";
import { describePlan, planOf, type FleetPlan } from "./plan";
import { inParallel } from "./pool";
import { readFleet } from "./read";

type Obj = Record<string, unknown>;
type Handlers = ResourceHandlers<"SandboxFleet">;

const logFor = (inputs: Obj) => resourceLogger("SandboxFleet", inputs);

/** The fleet's ID: from its key and nonce, the same for the life of the resource, and never another fleet's. */
function fleetID(inputs: Obj): string {
  return `sf-${identityDigest(String(inputs.__resource), String(inputs.__nonce)).slice(0, 16)}`;
}

/**
 * The fleet's state: its inputs, the members of `previous` that `outcomes` does not speak for, then
 * what each outcome says (a member without an entry has no sandbox), a record per member, and the keys
 * let go of (./member-record.ts).
 */
export function assemble(inputs: Obj, previous: FleetState, outcomes: readonly MemberOutcome[]): FleetState {
  const sandboxes = { ...previous.sandboxes };
  const records = recordsOf(previous);
  for (const o of outcomes) {
    if (o.entry) sandboxes[o.key] = o.entry;
    else delete sandboxes[o.key];
    // `spent` is kept through failures of another kind, so a create after them still takes a new generation.
    const spent = o.record?.spent ?? (o.failure !== undefined ? own(records, o.key)?.spent : undefined);
    records[o.key] = o.entry ? { ...o.record, spent } : { incarnation: o.record?.incarnation ?? own(records, o.key)?.incarnation, spent };
  }
  const state: FleetState = { ...withoutRecords(inputs), sandboxes };
  const keys = memberKeys(state) ?? [];
  const asked = new Set(keys);
  // A member no longer asked for keeps its record only while its sandbox is still there (a delete that failed).
  const held = (k: string) => asked.has(k) || Object.hasOwn(sandboxes, k);
  Object.assign(state, packed(records, held));
  const retired = retiredKeys(previous, records, held, (k) => Object.hasOwn(sandboxes, k));
  if (Object.keys(retired).length) state.__retired = retired;
  return { ...state, ready: keys.filter((k) => isReady(state, k)).length };
}

/**
 * The keys let go of: those retired before that no member holds again, and each whose member's record
 * or sandbox is dropped now, with the incarnation that comes next.
 */
function retiredKeys(previous: FleetState, records: Record<string, MemberRecord>, held: (key: string) => boolean, made: (key: string) => boolean): Record<string, number> {
  const retired = Object.fromEntries(Object.entries(previous.__retired ?? {}).filter(([k]) => !made(k)));
  const had = new Set([...Object.keys(records), ...Object.keys(previous.sandboxes ?? {})]);
  for (const key of had) if (!held(key)) retired[key] = incarnationOf(previous, key) + 1;
  return retired;
}

/** The error of an operation some members failed (`what`: of how many, and what failed): each failed member and why, and what the next run does. */
function failureMessage(what: (failed: number) => string, outcomes: readonly MemberOutcome[], next: string): string {
  const failed = outcomes.filter((o) => o.failure !== undefined);
  const lines = failed.map((o) => `  ${memberPath(o.key)}: ${o.failure}`);
  return `SandboxFleet: ${what(failed.length)}:\n${lines.join("\n")}\n${next}`;
}

/** Why a member was not started: the operation was stopped first (its Cancel, its deadline, or the engine gone). */
function stoppedWhy(): string {
  return `not started: ${(currentSignal()?.reason as Error | undefined)?.message ?? "the operation was stopped"}`;
}

/**
 * Claims made at once. Not `maxParallel`, which bounds the calls to the service's platform API (its
 * rate limits, the team's sandboxes): a claim is one call to its own sandbox's in-sandbox API, so no
 * two go to the same place, and they all wait for the last member, so at 16 a fleet of 500 ended with
 * 32 round trips in sequence. The bound keeps the connections one host holds open at once modest.
 */
const CLAIMS_AT_ONCE = 64;

/**
 * Makes each held claim now, a few dozen at a time, then the pause its create held back (each member's
 * entry says `paused` once it is). A claim that fails is said, and leaves its member unclaimed; a pause
 * that fails is the member's failure (it runs, and the next `up` pauses it).
 */
async function claimAll(inputs: Obj, held: readonly HeldClaim[], outcomes: MemberOutcome[]): Promise<void> {
  const byID = new Map(outcomes.filter((o) => o.entry).map((o) => [o.entry!.sandboxID, o]));
  await inParallel(held, CLAIMS_AT_ONCE, async (c) => {
    await claimHeld(c).catch((err: unknown) => {
      logFor(inputs)(`warning: sandbox ${c.sandboxID} could not be marked as this fleet's (${(err as Error).message}); a later fleet under this name might adopt it`);
    });
    const outcome = byID.get(c.sandboxID);
    if (!c.pause || !outcome?.entry) return;
    try {
      await c.pause();
      outcome.entry = { ...outcome.entry, state: "paused" };
    } catch (err) {
      outcome.failure = `could not pause sandbox ${c.sandboxID}: ${(err as Error).message.split("\n")[0]}`;
    }
  });
}

async function createFleet(inputs: Obj): Promise<{ id: string; outs: FleetState }> {
  const keys = memberKeys(inputs) ?? [];
  const limit = Number(inputs.maxParallel ?? 16);
  const held: HeldClaim[] = [];
  const results = await oneListing(() => holdingClaims(held, () =>
    inParallel(keys, limit, (key) => createMember(inputs, key, { generation: 0, incarnation: 0 }, memberInputs(writtenInputs(inputs, key))), currentSignal())));
  const outcomes = results.map((r, i) => r ?? { key: keys[i]!, failure: stoppedWhy() });
  if (!engineGone()) await claimAll(inputs, held, outcomes);
  const id = fleetID(inputs);
  const outs = assemble(inputs, {}, outcomes);
  if (!outcomes.some((o) => o.failure !== undefined)) return { id, outs };
  const made = Object.keys(outs.sandboxes ?? {}).length;
  const message = failureMessage((n) => `${n} of ${keys.length} members failed`, outcomes, `The ${made} members that exist are recorded; the next \`pulumi up\` makes the failed ones again, and only those.`);
  if (made === 0) throw new Error(message);
  throw new PartialCreateError(message, id, outs, inputs.__provider);
}

/** One member's work in an update, and what it has if the work is not started (the operation stopped first). */
interface Task {
  key: string;
  run: () => Promise<MemberOutcome>;
  asBefore: MemberOutcome;
}

/** The update's work on each member. */
function tasksOf(olds: FleetState, news: FleetState, plan: FleetPlan): Task[] {
  const before = (key: string, madeFrom?: Obj): MemberOutcome => {
    const was = asItWas(olds, key);
    return madeFrom ? { ...was, record: { ...was.record, madeFrom } } : was;
  };
  const born = (key: string) => ({ generation: nextGeneration(olds, key, false), incarnation: incarnationOf(olds, key) });
  return [
    ...plan.creates.map((key) => ({ key, asBefore: before(key), run: () => createMember(news, key, born(key), memberInputs(writtenInputs(news, key))) })),
    ...plan.changes.map((c) => ({ key: c.key, asBefore: before(c.key, oldMemberInputs(olds, c.key)), run: () => changeMember(olds, news, c) })),
    ...plan.deletes.map((key) => ({ key, asBefore: before(key), run: () => deleteMember(olds, key) })),
  ];
}

/**
 * How an update's creates look for what an interrupted run made: a few among many members each by its
 * own marker, side by side, when they are fewer than the pages of the stack's list, which are asked one
 * after another (5 at 500 members, for one member replaced); else the one listing, as a create does.
 */
function lookupFor(olds: FleetState, plan: FleetPlan): <T>(fn: () => Promise<T>) => Promise<T> {
  const creates = plan.creates.length + plan.changes.filter((c) => c.replace).length;
  const pages = Math.ceil(Object.keys(olds.sandboxes ?? {}).length / LIST_PAGE);
  return creates < pages ? byMarker : oneListing;
}

async function updateFleet(id: string, olds: FleetState, news: FleetState): Promise<{ outs: FleetState }> {
  const plan = planOf(olds, news);
  if (!plan) throw new Error("SandboxFleet: the members are not known yet (an unknown value reached an update)");
  logFor(news)(describePlan(plan, olds, news));
  const tasks = tasksOf(olds, news, plan);
  const results = await lookupFor(olds, plan)(() => inParallel(tasks, Number(news.maxParallel ?? 16), (t) => t.run(), currentSignal()));
  const outcomes = results.map((r, i) => r ?? { ...tasks[i]!.asBefore, failure: stoppedWhy() });
  const outs = assemble(news, olds, outcomes);
  const failed = outcomes.filter((o) => o.failure !== undefined);
  if (failed.length === 0) return { outs };
  const message = failureMessage((n) => `${n} of the ${tasks.length} members to create, change or delete failed`, failed, "The members as they are now are recorded; the next `pulumi up` tries the failed ones again, and only those.");
  throw new PartialCreateError(message, id, outs, news.__provider);
}

async function deleteFleet(_id: string, olds: FleetState): Promise<void> {
  const keys = Object.keys(olds.sandboxes ?? {});
  const results = await inParallel(keys, Number(olds.maxParallel ?? 16), (key) => deleteMember(olds, key));
  const failed = results.filter((r): r is MemberOutcome => r?.failure !== undefined);
  if (failed.length) throw new Error(failureMessage((n) => `${n} of ${keys.length} members could not be deleted`, failed, "The next `pulumi destroy` (or `up`) deletes them again."));
}

export const sandboxFleetHandlers: Handlers = {
  create: (inputs) => createFleet(inputs) as ReturnType<Handlers["create"]>,
  read: (id, olds) => readFleet(id, olds) as ReturnType<Handlers["read"]>,
  update: (id, olds, news) => updateFleet(id, olds as FleetState, news as FleetState) as ReturnType<Handlers["update"]>,
  delete: (id, olds) => deleteFleet(id, olds as FleetState),
};
