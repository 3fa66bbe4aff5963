/**
 * A fleet's members as Sandboxes: which members a fleet has, the Sandbox inputs of each (the fleet's
 * `sandbox` with the member's own over it), and the identity the Sandbox handlers derive its sandbox's
 * marker, idempotency key and claim from.
 *
 * Identity. A member is a Sandbox of its own to the handlers: its key is the fleet's with
 * `/members/<key>` after it (../../resource-key.ts: the same stack part, so the one listing of the
 * fleet's stack holds every member; its name, `<fleet>/members/<key>`, names its lines), its nonce is
 * derived from the fleet's and its key (two fleets under one key, one renamed away with `aliases`, differ
 * by their nonce, so do their members), and its generation is its own, kept in the fleet's state: a
 * member replaced inside the fleet gets a new marker, as a replaced Sandbox does.
 */
import type { z } from "zod";
import { checkInputs } from "../../check";
import { identityDigest } from "../identity";
import { containsUnknown, UNKNOWN, type ResourceSpec } from "../../spec";
import { sandboxSpec } from "../sandbox/spec";
import { incarnationOf, own, recordOf, type RecordFields } from "./member-record";
import { SandboxSettings, type FleetMember } from "./spec";

type Obj = Record<string, unknown>;

/** What state keeps of a member: what a Sandbox reports that a program reads. */
export type MemberEntry = z.output<typeof FleetMember>;

/** The fleet's state as the handlers read it: its inputs, its members, and a record per member (./member-record.ts). */
export interface FleetState extends Obj, RecordFields {
  sandbox?: Obj;
  members?: Record<string, Obj>;
  count?: number;
  sandboxes?: Record<string, MemberEntry>;
}

/** The keys of the members the inputs ask for, in order; undefined while they are unknown (a preview). */
export function memberKeys(inputs: FleetState): string[] | undefined {
  if (containsUnknown(inputs.count)) return undefined;
  if (typeof inputs.count === "number") return Array.from({ length: inputs.count }, (_, i) => String(i));
  if (inputs.members === (UNKNOWN as unknown)) return undefined;
  return Object.keys(inputs.members ?? {});
}

/** Maps merged key by key; the rest of a member's inputs replace the fleet's. */
const MERGED = ["envVars", "metadata"] as const;

/** The Sandbox inputs of member `key` as the program wrote them: the fleet's, with the member's over them. */
export function writtenInputs(inputs: FleetState, key: string): Obj {
  const shared = (inputs.sandbox ?? {}) as Obj;
  const mine = (own(inputs.members, key) ?? {}) as Obj;
  if ((shared as unknown) === UNKNOWN || (mine as unknown) === UNKNOWN) return { templateID: UNKNOWN };
  const out: Obj = { ...shared, ...mine };
  for (const field of MERGED) {
    const [a, b] = [shared[field], mine[field]];
    if (a === UNKNOWN || b === UNKNOWN) out[field] = UNKNOWN;
    // A null value takes the key away: a member drops a key of the fleet's (./spec.ts droppable).
    else if (a !== undefined || b !== undefined) out[field] = Object.fromEntries(Object.entries({ ...(a as Obj), ...(b as Obj) }).filter(([, v]) => v !== null));
  }
  return out;
}

/** `members["ada"]`: how a member is named in paths and messages. */
export const memberPath = (key: string): string => `members[${JSON.stringify(key)}]`;

/**
 * The Sandbox's spec as a member's inputs meet it: its rules, over the inputs a member may give (no
 * `forkFrom`, no deprecated `timeout`, so either is an unknown property rather than a rename).
 */
const MEMBER_SPEC: ResourceSpec = { ...sandboxSpec, inputs: SandboxSettings, renamed: {} };

/** A member's Sandbox inputs as `check` makes them (defaults applied), or the Sandbox rules they break (`path: rule`). */
export function checkedMember(written: Obj): { inputs?: Obj; failures?: string[] } {
  const outcome = checkInputs(MEMBER_SPEC, {}, written);
  if (!outcome.inputs) return { failures: (outcome.failures ?? []).map((f) => f.reason) };
  // The internals `check` minted are the Sandbox's own; a member's come from its fleet (`identityOf`).
  const { __resource: _k, __generation: _g, __nonce: _n, __auto: _a, ...inputs } = outcome.inputs;
  return { inputs };
}

/** A member's Sandbox inputs, checked; a member whose inputs break a rule (state written by hand) is refused. */
export function memberInputs(written: Obj): Obj {
  const { inputs, failures } = checkedMember(written);
  if (!inputs) throw new Error(`inputs that fail the Sandbox's check: ${(failures ?? []).join("; ")}`);
  return inputs;
}

/** The inputs member `key`'s sandbox was made from, as checked: the fleet's old inputs, unless a failed change left others. */
export function oldMemberInputs(olds: FleetState, key: string): Obj {
  return memberInputs(recordOf(olds, key).madeFrom ?? writtenInputs(olds, key));
}

/** 16 hex digits from the fleet's nonce, the member's key and its incarnation (../identity.ts). */
function memberNonce(fleetNonce: string, key: string, incarnation: number): string {
  return (incarnation ? identityDigest(fleetNonce, "members", key, incarnation) : identityDigest(fleetNonce, "members", key)).slice(0, 16);
}

/** Which sandbox of member `key` an operation works on: its incarnation (./member-record.ts) and generation. */
export interface MemberIdentity {
  generation: number;
  incarnation: number;
}

/** The provider's own inputs of member `key` (../handler-shape.ts Internals), from the fleet's. */
export function identityOf(fleet: Obj, key: string, { generation, incarnation }: MemberIdentity): Obj {
  const fleetKey = typeof fleet.__resource === "string" ? fleet.__resource : "";
  const nonce = typeof fleet.__nonce === "string" && fleet.__nonce !== "" ? memberNonce(fleet.__nonce, key, incarnation) : undefined;
  return {
    __resource: `${fleetKey}/members/${key}`,
    __generation: generation,
    ...(nonce ? { __nonce: nonce } : {}),
    ...(Array.isArray(fleet.__secrets) ? { __secrets: fleet.__secrets } : {}),
    ...(fleet.__provider !== undefined ? { __provider: fleet.__provider } : {}),
  };
}

/** The identity of member `key`'s sandbox, in the fleet's state. */
export function identityIn(state: FleetState, key: string): MemberIdentity {
  return { generation: recordOf(state, key).generation ?? 0, incarnation: incarnationOf(state, key) };
}

/** The generation of member `key`'s sandbox, in the fleet's state. */
export const generationOf = (state: FleetState, key: string): number => recordOf(state, key).generation ?? 0;

/** The generation the next create of member `key` takes: a replacement's is past its sandbox's, and past every one spent. */
export function nextGeneration(state: FleetState, key: string, replacing: boolean): number {
  const { spent, generation: current = 0 } = recordOf(state, key);
  if (spent !== undefined) return Math.max(current, spent) + 1;
  return replacing ? current + 1 : current;
}

/** What the Sandbox handlers take as member `key`'s state: its inputs, identity and what state keeps of it. */
export function sandboxStateOf(state: FleetState, key: string, inputs: Obj = oldMemberInputs(state, key)): Obj {
  const entry = own(state.sandboxes, key);
  return { ...inputs, ...identityOf(state, key, identityIn(state, key)), ...entry, __provisionRun: recordOf(state, key).run ?? 0 };
}

/** What state keeps of a member's Sandbox state: its entry, and its provisioning run (0 is left out). */
export function entryOf(outs: Obj): { entry: MemberEntry; run: number } {
  const entry: MemberEntry = { sandboxID: String(outs.sandboxID), state: String(outs.state), provisioned: outs.provisioned === true };
  // What holds nothing is left out (a token the service did not give, no ports, no commands): state stays small.
  const urls = (outs.urls ?? {}) as Record<string, string>;
  const results = (outs.provisionResults ?? []) as NonNullable<MemberEntry["provisionResults"]>;
  if (Object.keys(urls).length) entry.urls = urls;
  if (results.length) entry.provisionResults = results;
  if (typeof outs.envdAccessToken === "string") entry.envdAccessToken = outs.envdAccessToken;
  if (typeof outs.trafficAccessToken === "string") entry.trafficAccessToken = outs.trafficAccessToken;
  return { entry, run: typeof outs.__provisionRun === "number" ? outs.__provisionRun : 0 };
}

/** Whether member `key` runs as asked: made, provisioned, and in the state its inputs ask for (running unless paused). */
export function isReady(state: FleetState, key: string): boolean {
  const entry = own(state.sandboxes, key);
  if (!entry || !entry.provisioned) return false;
  const asked = (own(state.members, key)?.state ?? state.sandbox?.state ?? "running") as string;
  return entry.state === asked;
}
