/**
 * One member's create, change and delete: the Sandbox kind's own handlers (../sandbox/sandbox.ts),
 * called with the member's inputs and identity (./members.ts), each as a part of the fleet's operation
 * (its lines named `<fleet>/members/<key>` on the fleet's row). A failure is the member's, never thrown:
 * it comes back with what the member has now (a sandbox whose provisioning failed is kept, as a
 * Sandbox keeps it), and the fleet records every member that exists.
 */
import { urnOf } from "../../resource-key";
import { isNotFound, untyped, type InputsOf } from "../../runtime/handlers";
import { runAsPart } from "../../runtime/operation";
import { createSandbox, sandboxHandlers } from "../sandbox/sandbox";
import { own, recordOf, type MemberRecord } from "./member-record";
import { entryOf, identityIn, identityOf, nextGeneration, oldMemberInputs, sandboxStateOf, type FleetState, type MemberEntry, type MemberIdentity } from "./members";
import type { MemberChange } from "./plan";

type Obj = Record<string, unknown>;

const sandboxes = untyped(sandboxHandlers);

/** What a member has after one operation of the fleet. */
export interface MemberOutcome {
  key: string;
  /** Its entry now; undefined: it has no sandbox. */
  entry?: MemberEntry | undefined;
  /** Its record now (./member-record.ts): of its sandbox, or its incarnation and `spent` when a create left it none. */
  record?: MemberRecord;
  /** Why it failed, in a line. */
  failure?: string;
}

/** Member `key` as the fleet's state has it: what an operation that changed nothing gives back. */
export function asItWas(olds: FleetState, key: string): MemberOutcome {
  return { key, entry: own(olds.sandboxes, key), record: recordOf(olds, key) };
}

/** The first line of an error: the member's own failure, as its Sandbox's error opens with it. */
const lineOf = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split("\n")[0] ?? "";

/** The state a failed create or update recorded (../../runtime/partial.ts), if the sandbox exists. */
function partialOf(err: unknown): Obj | undefined {
  const e = err as { id?: unknown; properties?: unknown } | null;
  return e && typeof e.id === "string" && e.properties && typeof e.properties === "object" ? (e.properties as Obj) : undefined;
}

/** Runs `fn` as member `key` of the fleet `fleet`. */
function asMember<T>(fleet: Obj, key: string, fn: () => Promise<T>): Promise<T> {
  return runAsPart(`members/${key}`, urnOf(typeof fleet.__resource === "string" ? fleet.__resource : ""), fn);
}

/** Creates member `key` as the sandbox `who` names, with its checked Sandbox `inputs`. */
export function createMember(fleet: Obj, key: string, who: MemberIdentity, inputs: Obj): Promise<MemberOutcome> {
  return asMember(fleet, key, async () => {
    try {
      // Its entry (./members.ts entryOf) is all in the create's answer: no read after it.
      const { outs } = await createSandbox({ ...inputs, ...identityOf(fleet, key, who) } as InputsOf<"Sandbox">, { fromAnswer: true });
      return { key, ...entryAndRecord(outs, who) };
    } catch (err) {
      const partial = partialOf(err);
      return partial ? { key, ...entryAndRecord(partial, who), failure: lineOf(err) } : { key, failure: lineOf(err), record: { incarnation: who.incarnation, spent: who.generation } };
    }
  });
}

/** Deletes member `key`'s sandbox (gone already: done). */
export function deleteMember(olds: FleetState, key: string): Promise<MemberOutcome> {
  const entry = own(olds.sandboxes, key);
  return asMember(olds, key, async () => {
    if (!entry) return { key };
    try {
      await sandboxes.delete(entry.sandboxID, sandboxStateOf(olds, key, {}));
      return { key };
    } catch (err) {
      return { ...asItWas(olds, key), failure: `could not delete sandbox ${entry.sandboxID}: ${lineOf(err)}` };
    }
  });
}

/** Replaces member `key` inside the fleet: the new sandbox made first, then the old one deleted, as the engine replaces a Sandbox. */
async function replaceMember(olds: FleetState, news: Obj, change: MemberChange): Promise<MemberOutcome> {
  const { key } = change;
  const made = await createMember(news, key, { ...identityIn(olds, key), generation: nextGeneration(olds, key, true) }, change.inputs);
  if (!made.entry) return { ...keptAfterFailure(olds, key, made.failure ?? ""), record: { ...recordOf(olds, key), madeFrom: oldMemberInputs(olds, key), spent: made.record?.spent } };
  const gone = await deleteMember(olds, key);
  const failure = [made.failure, gone.failure && `the sandbox it replaces: ${gone.failure}`].filter(Boolean).join("; ");
  return { ...made, ...(failure ? { failure } : {}) };
}

/** Member `key` as it was, its old sandbox kept after a change of it failed: the next `up` tries the change again. */
function keptAfterFailure(olds: FleetState, key: string, failure: string): MemberOutcome {
  return { ...asItWas(olds, key), record: { ...recordOf(olds, key), madeFrom: oldMemberInputs(olds, key) }, failure };
}

/** Updates member `key` in place, as a Sandbox is; a sandbox gone since is made again. */
async function updateMember(olds: FleetState, news: Obj, change: MemberChange): Promise<MemberOutcome> {
  const { key } = change;
  const who = identityIn(olds, key);
  const state = sandboxStateOf(olds, key);
  const outcome = await asMember(news, key, async (): Promise<MemberOutcome | "gone"> => {
    try {
      const { outs } = await sandboxes.update(String(state.sandboxID), state, { ...change.inputs, ...identityOf(news, key, who) });
      return { key, ...entryAndRecord(outs, who) };
    } catch (err) {
      if (isNotFound(err) && !(await sandboxes.read(String(state.sandboxID), state).catch(() => ({ id: "unknown" }))).id) return "gone";
      const partial = partialOf(err);
      if (partial) return { key, ...entryAndRecord(partial, who), failure: lineOf(err) };
      return keptAfterFailure(olds, key, lineOf(err));
    }
  });
  // It ended (its timeout, or killed elsewhere): the member is made again, under a new marker.
  return outcome === "gone" ? createMember(news, key, { ...who, generation: nextGeneration(olds, key, true) }, change.inputs) : outcome;
}

/** The entry and record of a member whose Sandbox state is `outs`. */
function entryAndRecord(outs: Obj, who: MemberIdentity): Pick<MemberOutcome, "entry" | "record"> {
  const { entry, run } = entryOf(outs);
  return { entry, record: { ...who, run } };
}

/** Changes member `key` as the plan says: replaced, or updated in place. */
export function changeMember(olds: FleetState, news: Obj, change: MemberChange): Promise<MemberOutcome> {
  return change.replace ? replaceMember(olds, news, change) : updateMember(olds, news, change);
}
