/**
 * A fleet's read (`pulumi refresh`): every member from one listing of the fleet's stack (GET
 * /v2/sandboxes by the stack's metadata, paged), not one call per member. A member whose sandbox is not
 * listed is gone (it reached its timeout, or was killed elsewhere): it is dropped from `sandboxes`, so
 * the refresh shows it as drift and `ready` counts it no more, and the next `up` makes it again.
 */
import { stackOf } from "../../resource-key";
import { platform } from "../../runtime/context";
import { resourceLogger } from "../../runtime/log";
import { STACK_KEY } from "../sandbox/adoption";
import { importFleet } from "./import";
import { withoutRecords, withSpent } from "./member-record";
import { generationOf, isReady, memberKeys, type FleetState } from "./members";

export async function readFleet(id: string, olds: FleetState): Promise<{ id?: string; props?: FleetState }> {
  // No state: an import, whose ID names each member's sandbox (./import.ts).
  if (olds.sandboxes === undefined) return importFleet(id);
  // The stack part of every member's key (./members.ts identityOf), which their sandboxes are listed by.
  const stack = stackOf(`${typeof olds.__resource === "string" ? olds.__resource : ""}/members/`);
  const listed = await platform().sandboxes.listAll({ metadata: { [STACK_KEY]: stack }, state: ["running", "paused"] });
  const byID = new Map(listed.map((s) => [s.sandboxID, s]));
  const sandboxes: NonNullable<FleetState["sandboxes"]> = {};
  const spent: Record<string, number> = {};
  const log = resourceLogger("SandboxFleet", olds);
  for (const [member, entry] of Object.entries(olds.sandboxes ?? {})) {
    const found = byID.get(entry.sandboxID);
    if (found) {
      sandboxes[member] = { ...entry, state: found.state };
      continue;
    }
    log(`member ${JSON.stringify(member)}: sandbox ${entry.sandboxID} is gone (it reached its timeout, or was killed outside Pulumi); the next \`pulumi up\` makes it again`);
    // Its create's idempotency key would be answered with the sandbox that ended: the next create takes a new generation.
    spent[member] = generationOf(olds, member);
  }
  const props: FleetState = { ...withoutRecords(olds), sandboxes, ...withSpent(olds, spent) };
  return { id, props: { ...props, ready: (memberKeys(props) ?? []).filter((k) => isReady(props, k)).length } };
}
