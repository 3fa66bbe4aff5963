/**
 * The name of a snapshot the program does not name. The service never expires a snapshot, and without
 * a name nothing tells a snapshot a killed `up` took from another of the same sandbox: the next run
 * would take a second one and the first would be billed forever. So a create without `name` names its
 * snapshot `<resource name>-<8 hex>-<8 hex>`:
 *   - the resource's auto-name (../naming.ts), from its key and generation: what a re-run of a killed
 *     `up` derives again (unlike the nonce, which it mints anew: ../identity.ts);
 *   - 8 hex digits of an HMAC (../../runtime/made-from.ts) of what the snapshot is made from: the sandbox
 *     and every other input (`triggers`, `mode`, and whatever input is added later).
 * The second part is what keeps a replacement's name apart from the snapshot it replaces: the engine
 * checks a replacement's inputs afresh, without the old state (so with the generation of a first
 * create), and a replacement always has another input, since every input replaces. A create first
 * looks the name up: found and unclaimed (./claim.ts), it is the snapshot an interrupted create of this
 * resource took of this sandbox from these inputs (a killed `up`, a lost answer), and is adopted; found
 * and claimed, it is another resource's under the same key, and the create tries the next name.
 *
 * Only creates name: a snapshot taken before this was unnamed, and its state is left as it is (a name
 * added to it would be a change of `name`, which replaces).
 */
import { madeFromDigest } from "../../runtime/made-from";
import type { InputsOf } from "../../runtime/handlers";
import { autoName } from "../naming";
import { SnapshotInputs } from "./spec";

/** Hex digits of what it is made from: enough to tell a change (1 in 4 billion to miss one). */
const MADE_FROM_HEX = 8;

/** The name a create without `name` gives its snapshot; undefined without a resource key (nothing to derive it from). */
export function autoSnapshotName(inputs: InputsOf<"Snapshot">): string | undefined {
  const key = inputs.__resource;
  if (typeof key !== "string" || key === "") return undefined;
  const given = inputs as Record<string, unknown>;
  const madeFrom = Object.fromEntries(Object.keys(SnapshotInputs.shape).filter((k) => k !== "name").map((k) => [k, given[k]]));
  return `${autoName(key, inputs.__generation ?? 0)}-${madeFromDigest("snapshot", madeFrom).slice(0, MADE_FROM_HEX)}`;
}
