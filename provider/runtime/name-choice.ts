/**
 * `check`'s choice of an auto-name for a resource with no state yet (../kinds/name-claims.ts): the
 * first candidate that no finished create of another resource claimed. A resource in state keeps the
 * name it was made under, so only a first create (or a replacement, which the engine checks afresh)
 * asks the service; a preview of a stack's first `up`, whose key is unknown, asks nothing.
 */
import { definitionOf, SPECS, type ResourceKind } from "../kinds";
import { firstAutoName, nameCandidates } from "../kinds/name-claims";
import { UNKNOWN } from "../spec";
import type { Inputs } from "./handlers";

/** The first candidate, when `check` may choose: a resource with no state, auto-named, its key known. */
function choosing(kind: ResourceKind, stored: Inputs, inputs: Inputs): { first: string; nonce: string } | undefined {
  if (typeof stored.__resource === "string" && stored.__resource !== "") return undefined;
  const key = inputs.__resource;
  if (typeof key !== "string" || key === "" || key === UNKNOWN || typeof inputs.__nonce !== "string") return undefined;
  const auto = firstAutoName(SPECS[kind], inputs);
  return auto && inputs[auto.field] === auto.first ? { first: auto.first, nonce: inputs.__nonce } : undefined;
}

/** How long the look-ups of one `check` may take: a preview must not wait out the client's retries. */
const LOOKUP_MS = 3_000;
/** After a look-up failed, how long the checks of this process skip theirs (a preview offline pays once). */
const SKIP_AFTER_FAILURE_MS = 60_000;
let skipUntil = 0;

/**
 * `inputs` with the auto-name replaced by the first candidate not claimed by another resource. When
 * the service cannot be asked (a preview offline, a bad credential), the inputs stay as they are: the
 * create asks again before it adopts anything, and refuses a claimed object by name.
 */
export async function chooseFreeName(kind: ResourceKind, stored: Inputs, inputs: Inputs): Promise<Inputs> {
  const load = definitionOf(kind).claims;
  const at = load && choosing(kind, stored, inputs);
  if (!load || !at || Date.now() < skipUntil) return inputs;
  try {
    const claims = await load();
    const call = { signal: AbortSignal.timeout(LOOKUP_MS) };
    for (const name of nameCandidates(at.first)) {
      if ((await claims.holder(name, at.nonce, call)) !== "claimed") return { ...inputs, [claims.field]: name };
    }
    return inputs; // all taken: the create refuses, naming the first
  } catch {
    skipUntil = Date.now() + SKIP_AFTER_FAILURE_MS;
    return inputs;
  }
}
