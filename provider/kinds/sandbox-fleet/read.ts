/**
 * A fleet's read (`pulumi refresh`): every member from one listing of the fleet's stack (GET
 * /v2/sandboxes by the stack's metadata, paged), not one call per member. A listing is no proof that a
 * member is gone: its pages are read one after another, and a member that resumes between two of them
 * (a paused one with autoResume that got a request) moves ahead of the page being read, so no page holds
 * it; a listing can also lag the service's sandboxes. So a member the listing misses is asked for by its
 * ID (GET /sandboxes/{id}), and only a 404 drops it: it reached its timeout, or was killed elsewhere.
 * A dropped member leaves `sandboxes`, so the refresh shows it as drift and `ready` counts it no more,
 * and the next `up` makes it again.
 */
import type { SandboxState } from "../../../sdk/schemas/sandboxes";
import { stackOf } from "../../resource-key";
import { platform } from "../../runtime/context";
import { isNotFound } from "../../runtime/handlers";
import { resourceLogger } from "../../runtime/log";
import { STACK_KEY } from "../sandbox/adoption";
import { importFleet } from "./import";
import { withoutRecords, withSpent } from "./member-record";
import { generationOf, isReady, memberKeys, type FleetState } from "./members";
import { inParallel } from "./pool";

/** How many members the listing missed are asked for at once. */
const ASKED_AT_ONCE = 16;

/** The state of the sandbox `id`, asked by its ID; undefined when the service has no such sandbox. */
async function stateByID(id: string): Promise<SandboxState | undefined> {
  try {
    return (await platform().sandboxes.get(id)).state;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** The state of each member's sandbox, by member: from the listing, else asked by ID; undefined when it is gone. */
async function memberStates(olds: FleetState): Promise<Map<string, SandboxState | undefined>> {
  // The stack part of every member's key (./members.ts identityOf), which their sandboxes are listed by.
  const stack = stackOf(`${typeof olds.__resource === "string" ? olds.__resource : ""}/members/`);
  const listed = await platform().sandboxes.listAll({ metadata: { [STACK_KEY]: stack }, state: ["running", "paused"] });
  const byID = new Map<string, SandboxState>(listed.map((s) => [s.sandboxID, s.state]));
  const entries = Object.entries(olds.sandboxes ?? {});
  const missed = entries.filter(([, entry]) => !byID.has(entry.sandboxID));
  const asked = await inParallel(missed, ASKED_AT_ONCE, ([, entry]) => stateByID(entry.sandboxID));
  missed.forEach(([, entry], i) => asked[i] && byID.set(entry.sandboxID, asked[i]));
  return new Map(entries.map(([member, entry]) => [member, byID.get(entry.sandboxID)]));
}

export async function readFleet(id: string, olds: FleetState): Promise<{ id?: string; props?: FleetState }> {
  // No state: an import, whose ID names each member's sandbox (./import.ts).
  if (olds.sandboxes === undefined) return importFleet(id);
  const states = await memberStates(olds);
  const sandboxes: NonNullable<FleetState["sandboxes"]> = {};
  const spent: Record<string, number> = {};
  const log = resourceLogger("SandboxFleet", olds);
  for (const [member, entry] of Object.entries(olds.sandboxes ?? {})) {
    const state = states.get(member);
    if (state) {
      sandboxes[member] = { ...entry, state };
      continue;
    }
    log(`member ${JSON.stringify(member)}: sandbox ${entry.sandboxID} is gone (it reached its timeout, or was killed outside Pulumi); the next \`pulumi up\` makes it again`);
    // Its create's idempotency key would be answered with the sandbox that ended: the next create takes a new generation.
    spent[member] = generationOf(olds, member);
  }
  const props: FleetState = { ...withoutRecords(olds), sandboxes, ...withSpent(olds, spent) };
  return { id, props: { ...props, ready: (memberKeys(props) ?? []).filter((k) => isReady(props, k)).length } };
}
