/**
 * Adoption: a killed `pulumi up` (or a create whose answer was lost) may have made a sandbox that its
 * state does not record, and the next run must take that sandbox over instead of making a second one.
 *
 * Every sandbox carries two metadata entries: its marker, `<resource key>#<generation>`, the same on a
 * re-run and new for a replacement; and its stack, the key's stack part (../resource-key.ts), which
 * holds the stack instance, so the lists of two same-named stacks on two backends never mix. The engine
 * cannot say whether a create is a re-run (after `refresh --clear-pending-creates` nothing in the state
 * says so), so every create looks; but one list of the stack's sandboxes answers the creates of a
 * whole `up`: the host takes it at the first create of a stack and lets it answer the creates of the
 * next SNAPSHOT_MS, and only a create it does not find in it makes a request (the POST). What a run
 * killed before this one made is in the list; the window it leaves is a sandbox made for the same
 * resource by another process after the list was taken (a host of the killed run still finishing its
 * POST), the same race a lookup per create had between its lookup and its POST, widened from one
 * request to at most SNAPSHOT_MS.
 */
import type { Sandbox } from "../../sdk/schemas/sandboxes";
import type { PlatformClient } from "../../sdk/client";
import { stackOf } from "../resource-key";
import { MARKER_KEY } from "../specs/sandbox";
import { platform } from "../runtime/context";
import { isNotFound } from "../runtime/handlers";

/** Metadata key holding the stack a sandbox was made for (`stackOf` in ../resource-key.ts). */
export const STACK_KEY = "pulumi-sandbox.stack";

/** How long one list of a stack's sandboxes answers later creates of that stack. */
export const SNAPSHOT_MS = 10_000;

/** The marker of a resource: its key and replacement generation. */
export function markerOf(inputs: { __resource?: string | undefined; __generation?: number | undefined }): string {
  return `${inputs.__resource ?? ""}#${inputs.__generation ?? 0}`;
}

/** The metadata that marks a sandbox made for `inputs`. */
export function markings(inputs: { __resource?: string | undefined; __generation?: number | undefined }): Record<string, string> {
  return { [MARKER_KEY]: markerOf(inputs), [STACK_KEY]: stackOf(inputs.__resource ?? "") };
}

/** The user's metadata: without the entries this provider adds (the prefix is reserved to it). */
export function withoutMarkings(metadata: Record<string, string> | null | undefined): Record<string, string> | undefined {
  const entries = Object.entries(metadata ?? {}).filter(([k]) => !k.startsWith("pulumi-sandbox."));
  return entries.length ? Object.fromEntries(entries) : undefined;
}

interface Snapshot {
  at: number;
  /** Sandbox ID by marker. */
  byMarker: Promise<Map<string, string>>;
}

// Per client (a configure with other endpoints is another service), then per stack.
const snapshots = new WeakMap<PlatformClient, Map<string, Snapshot>>();

function madeFor(stack: string): Promise<Map<string, string>> {
  const client = platform();
  const ofClient = snapshots.get(client) ?? new Map<string, Snapshot>();
  snapshots.set(client, ofClient);
  const kept = ofClient.get(stack);
  if (kept && Date.now() - kept.at <= SNAPSHOT_MS) return kept.byMarker;
  const listed = client.sandboxes.listAll({ metadata: { [STACK_KEY]: stack }, state: ["running", "paused"] });
  const snapshot: Snapshot = {
    at: Date.now(),
    byMarker: listed.then((list) => new Map(list.flatMap((s) => (s.metadata?.[MARKER_KEY] ? [[s.metadata[MARKER_KEY], s.sandboxID] as const] : [])))),
  };
  ofClient.set(stack, snapshot);
  // A failed list is not kept: the next create asks again.
  snapshot.byMarker.catch(() => ofClient.get(stack) === snapshot && ofClient.delete(stack));
  return snapshot.byMarker;
}

/**
 * The sandbox an earlier run made for `inputs`, or undefined when there is none. Connected: connect
 * answers with the same shape as create, tokens included (a get would lose the trafficAccessToken,
 * which only these two calls return); for a running sandbox it only ever extends its life.
 */
export async function madeEarlier(inputs: { __resource?: string | undefined; __generation?: number | undefined }, timeout: number): Promise<Sandbox | undefined> {
  const id = (await madeFor(stackOf(inputs.__resource ?? ""))).get(markerOf(inputs));
  if (!id) return undefined;
  try {
    return await platform().sandboxes.connect(id, { timeout });
  } catch (err) {
    if (isNotFound(err)) return undefined; // ended since the list was taken
    throw err;
  }
}

/**
 * The sandbox with this exact marker, asked of the service now: after a create whose outcome is
 * unknown (the answer was lost), the list taken before it cannot know.
 */
export async function findByMarker(marker: string, timeout: number): Promise<Sandbox | undefined> {
  const [found] = await platform().sandboxes.listAll({ metadata: { [MARKER_KEY]: marker }, state: ["running", "paused"] });
  return found ? platform().sandboxes.connect(found.sandboxID, { timeout }) : undefined;
}
