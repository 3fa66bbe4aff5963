/**
 * Adoption: a killed `pulumi up` (or a create whose answer was lost) may have made a sandbox that its
 * state does not record, and the next run must take that sandbox over instead of making a second one.
 *
 * Every sandbox carries two metadata entries: its marker, `<resource key>#<generation>`, the same on a
 * re-run and new for a replacement; and its stack, the key's stack part (../../resource-key.ts), which
 * holds the stack instance, so the lists of two same-named stacks on two backends never mix. The engine
 * cannot say whether a create is a re-run (after `refresh --clear-pending-creates` nothing in the state
 * says so), so every create looks; but one list of the stack's sandboxes answers the creates of a
 * whole `up`: the host takes it at the first create of a stack and lets it answer the creates of the
 * next SNAPSHOT_MS, and only a create it does not find in it makes a request (the POST). What a run
 * killed before this one made is in the list; the window it leaves is a sandbox made for the same
 * resource by another process after the list was taken (a host of the killed run still finishing its
 * POST), the same race a lookup per create had between its lookup and its POST, widened from one
 * request to at most SNAPSHOT_MS.
 *
 * A third entry says what the sandbox was made from (INPUTS_KEY: ../../runtime/made-from.ts). The marker
 * is the same whatever the inputs, and a program edited between a killed run and the next must not
 * get the sandbox the killed run made from the old inputs (its old environment, say): only a sandbox
 * made from the inputs the create has is adopted; one made from others is stale, and the create
 * removes it and makes a new one.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Sandbox } from "../../../sdk/schemas/sandboxes";
import type { PlatformClient } from "../../../sdk/platform/client";
import { stackOf } from "../../resource-key";
import { MARKER_KEY } from "./spec";
import { checkedNonce } from "../identity";
import { platform } from "../../runtime/context";
import { ignoreNotFound, isNotFound } from "../../runtime/handlers";
import { ANOTHER_KEY, differingFields } from "../../runtime/made-from";

/** Metadata key holding the stack a sandbox was made for (`stackOf` in ../../resource-key.ts). */
export const STACK_KEY = "pulumi-sandbox.stack";

/** Metadata key holding the digests of the inputs a sandbox was made from (see sandbox.ts madeFrom). */
export const INPUTS_KEY = "pulumi-sandbox.inputs";

/** Metadata key holding the nonce of the resource a sandbox was made for (../identity.ts). */
export const NONCE_KEY = "pulumi-sandbox.nonce";

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

/** A sandbox made for a marker, the digests of what it was made from and its create's nonce ("" when it has none). */
interface Made {
  sandboxID: string;
  madeFrom: string;
  nonce: string;
}

interface Snapshot {
  at: number;
  /** The sandboxes made for each marker (more than one only when a stale one could not be removed). */
  byMarker: Promise<Map<string, Made[]>>;
}

/** The sandboxes one page of GET /v2/sandboxes holds: the service's default, and its most (docs/service.md). */
export const LIST_PAGE = 100;

// Per client (a configure with other endpoints is another service), then per stack.
const snapshots = new WeakMap<PlatformClient, Map<string, Snapshot>>();
/** BY_MARKER: each create of the operation asks for its own marker (`byMarker`). */
const BY_MARKER = "by marker";
/** The lists one operation of many sandboxes holds for its whole length (`oneListing`), by stack; or BY_MARKER. */
const held = new AsyncLocalStorage<Map<string, Snapshot> | typeof BY_MARKER>();

/** The sandboxes with this metadata (the stack's, or one marker's) by marker, as the service lists them now. */
function listedNow(client: PlatformClient, metadata: Record<string, string>): Snapshot {
  const listed = client.sandboxes.listAll({ metadata, state: ["running", "paused"] });
  return {
    at: Date.now(),
    byMarker: listed.then((list) => {
      const byMarker = new Map<string, Made[]>();
      for (const s of list) {
        const marker = s.metadata?.[MARKER_KEY];
        const made = { sandboxID: s.sandboxID, madeFrom: s.metadata?.[INPUTS_KEY] ?? "", nonce: s.metadata?.[NONCE_KEY] ?? "" };
        if (marker) byMarker.set(marker, [...(byMarker.get(marker) ?? []), made]);
      }
      return byMarker;
    }),
  };
}

function madeFor(stack: string, pinned: Map<string, Snapshot> | undefined): Promise<Map<string, Made[]>> {
  const client = platform();
  const ofClient = pinned ?? snapshots.get(client) ?? new Map<string, Snapshot>();
  if (!pinned) snapshots.set(client, ofClient);
  const kept = ofClient.get(stack);
  if (kept && (pinned || Date.now() - kept.at <= SNAPSHOT_MS)) return kept.byMarker;
  const snapshot = listedNow(client, { [STACK_KEY]: stack });
  ofClient.set(stack, snapshot);
  // A failed list is not kept: the next create asks again.
  snapshot.byMarker.catch(() => ofClient.get(stack) === snapshot && ofClient.delete(stack));
  return snapshot.byMarker;
}

/**
 * Runs `fn` (the creates of one operation of many sandboxes: a fleet's) with one list of each stack
 * answering all of them, however long it takes: SNAPSHOT_MS would have a fleet of hundreds list its
 * stack again every 10 s. The window it leaves is SNAPSHOT_MS's, widened to the operation: a sandbox
 * made for one of its creates by another process after the list was taken.
 */
export function oneListing<T>(fn: () => Promise<T>): Promise<T> {
  return held.run(new Map(), fn);
}

/**
 * Runs `fn` (a few creates among a stack of many sandboxes: a fleet's update that replaces one member
 * of hundreds) with each create asking for its own marker, one request, the creates' side by side:
 * the stack's list takes a request per LIST_PAGE sandboxes, one after another. A marker names its
 * resource's key, and so its stack (`markings`): the answer is what the stack's list holds for it, taken
 * at the create rather than at the operation's start, so the window `oneListing` leaves is narrower.
 */
export function byMarker<T>(fn: () => Promise<T>): Promise<T> {
  return held.run(BY_MARKER, fn);
}

/** The sandboxes with `marker` (and `nonce`, when given: one create's own), as the service lists them now. */
async function withMarker(marker: string, nonce?: string): Promise<Made[]> {
  const metadata: Record<string, string> = nonce === undefined ? { [MARKER_KEY]: marker } : { [MARKER_KEY]: marker, [NONCE_KEY]: nonce };
  return (await listedNow(platform(), metadata).byMarker).get(marker) ?? [];
}

/** The sandboxes made for `inputs`' marker: from the stack's list, or asked by the marker alone (`byMarker`). */
async function markedFor(inputs: Identity): Promise<Made[]> {
  const pinned = held.getStore();
  if (pinned === BY_MARKER) return withMarker(markerOf(inputs));
  return (await madeFor(stackOf(inputs.__resource ?? ""), pinned)).get(markerOf(inputs)) ?? [];
}

/** A sandbox an earlier run made for the resource from other inputs: which inputs differ (none named: it recorded none). */
export interface Stale {
  sandboxID: string;
  changed: string[];
}

/**
 * A sandbox with the resource's marker that is not provably a killed run's (./claim.ts): `claimed`, a
 * finished create made it; `unknown`, it is paused; `unmarked`, a version before 0.3 made it, which
 * marked no finished create. It is left as it is: the create makes a new one.
 */
export interface Doubtful {
  sandboxID: string;
  standing: "claimed" | "unknown" | "unmarked";
  /** The nonce of the create that made it ("" for a version before nonces). */
  nonce: string;
}

/** What earlier runs made for a resource: the sandbox to adopt, if one was made from these inputs, the stale ones, and the doubtful ones. */
export interface MadeEarlier {
  adopted?: Sandbox | undefined;
  stale: Stale[];
  doubtful: Doubtful[];
}

type Identity = { __resource?: string | undefined; __generation?: number | undefined; __nonce?: string | undefined };

/**
 * Sorts what carries the resource's marker: this create's own (its nonce) and what a killed run made
 * (no finished create claimed it) are the resource's; anything else is doubtful. The standing is asked
 * of a sandbox only when its nonce is another's, which a first create of a resource never meets.
 */
async function ownOrDoubtful(inputs: Identity, made: Made[]): Promise<{ own: Made[]; doubtful: Doubtful[] }> {
  const own: Made[] = [];
  const doubtful: Doubtful[] = [];
  for (const m of made) {
    if (inputs.__nonce !== undefined && m.nonce === inputs.__nonce) own.push(m);
    else if (m.nonce === "") doubtful.push({ sandboxID: m.sandboxID, standing: "unmarked", nonce: m.nonce });
    else {
      const { standingOf } = await import("./claim.js");
      const standing = await standingOf(m.sandboxID);
      if (standing === "unclaimed") own.push(m);
      else doubtful.push({ sandboxID: m.sandboxID, standing, nonce: m.nonce });
    }
  }
  return { own, doubtful };
}

/**
 * What earlier runs made for `inputs` (`madeFrom`: the digests of its inputs). The sandbox to adopt is
 * connected: connect answers with the same shape as create, tokens included (a get would lose the
 * trafficAccessToken, which only these two calls return); for a running sandbox it only ever extends its life.
 */
export async function madeEarlier(inputs: Identity, madeFrom: string, timeout: number): Promise<MadeEarlier> {
  const { own: made, doubtful } = await ownOrDoubtful(inputs, await markedFor(inputs));
  const stale = made.filter((m) => m.madeFrom !== madeFrom).map((m) => ({ sandboxID: m.sandboxID, changed: m.madeFrom ? differingFields(m.madeFrom, madeFrom) : [] }));
  const same = made.find((m) => m.madeFrom === madeFrom);
  if (!same) return { stale, doubtful };
  try {
    return { adopted: await platform().sandboxes.connect(same.sandboxID, { timeout }), stale, doubtful };
  } catch (err) {
    if (isNotFound(err)) return { stale, doubtful }; // ended since the list was taken
    throw err;
  }
}

/**
 * The sandbox this very create made (its marker and nonce, from these inputs), asked of the service now:
 * after a create whose outcome is unknown (the answer was lost), the list taken before it cannot know.
 */
export async function findByMarker(inputs: Identity, madeFrom: string, timeout: number): Promise<Sandbox | undefined> {
  const found = (await withMarker(markerOf(inputs), inputs.__nonce ?? "")).find((m) => m.madeFrom === madeFrom);
  return found ? platform().sandboxes.connect(found.sandboxID, { timeout }) : undefined;
}

/**
 * After a create the sdk had to repeat (its answer was lost), the sandboxes other than `kept` that the
 * same create made: a deployment of the service that predates idempotency keys makes one per attempt.
 * Same marker and same nonce means the same create of the same resource, so they are provably this
 * create's own, never another resource's, and are removed.
 */
export async function removeRepeats(inputs: Identity, kept: string): Promise<void> {
  for (const m of await withMarker(markerOf(inputs), inputs.__nonce ?? "")) {
    if (m.sandboxID !== kept) await ignoreNotFound(() => platform().sandboxes.kill(m.sandboxID));
  }
}

/** Deletes what an interrupted run made for the resource from other inputs (`stale`: ./adoption.ts madeEarlier). */
export async function removeStale(stale: Stale[], log: (line: string) => void): Promise<void> {
  for (const { sandboxID, changed } of stale) {
    // Adopted, it would be recorded with inputs it was not made from (its old environment, say), and no later run would notice.
    const why = changed === ANOTHER_KEY
      ? "with another API key (the stack's key changed since), so whether its inputs are these cannot be told"
      : changed.length ? `from other inputs (${changed.join(", ")} changed since)` : "by a version that did not record its inputs";
    log(`sandbox ${sandboxID}, made by an interrupted run, was made ${why}: deleting it and creating a new one`);
    await ignoreNotFound(() => platform().sandboxes.kill(sandboxID));
  }
}

/** Why a sandbox with the resource's marker is left alone (./adoption.ts Doubtful), as the resource's row says it. */
const DOUBT: Record<Doubtful["standing"], string> = {
  claimed: "a finished create made it for another resource (one renamed away from this name with `aliases`, or moved to another stack with `pulumi state move`)",
  unknown: "it is paused, so whether a finished create made it cannot be told without resuming it",
  unmarked: "a version of this provider before 0.3 made it, which marked no finished create",
};

/** What the engine does with the sandbox a targeted replacement replaces, which the create cannot tell from the others. */
const OR_REPLACED = "or it is the one this create replaces (`pulumi up --replace`, `pulumi state taint`), which the engine deletes once this one exists";

/**
 * What the resource's row says of a sandbox with its marker that it leaves alone (`key`: the resource's).
 * A replacement carries the marker of the sandbox it replaces, which the engine deletes once the
 * replacement exists: no cause for a warning, nor for advice to delete it. When the engine replaces a
 * resource for a changed input it first checks it with its state, whose nonce names that sandbox
 * (../identity.ts checkedNonce). For `pulumi up --replace` and `pulumi state taint` it checks it afresh
 * only, and nothing tells the create that it replaces: the row says what the sandbox can be, and advises
 * deleting only what outlives this `up` (a claimed one is some stack's). A fork carries a copy of its
 * parent's marker and claim, and is never taken for it (./fork.ts isFork).
 */
export async function leftAlone({ sandboxID, standing, nonce }: Doubtful, key: string | undefined): Promise<string> {
  if (standing === "claimed" && nonce !== "") {
    const { isFork } = await import("./fork.js");
    if (await isFork(sandboxID)) return `sandbox ${sandboxID} is a fork of a sandbox made under this resource's marker, which it carries as a copy: it is another resource's, and is left as it is`;
    if (nonce === checkedNonce(key)) return `sandbox ${sandboxID}, which this one replaces, is left for the engine to delete`;
  }
  const advice = standing === "claimed" ? "" : ` If it still runs after this \`up\` and no stack records it, delete it (DELETE /sandboxes/${sandboxID}).`;
  return `warning: sandbox ${sandboxID} carries this resource's marker, but ${DOUBT[standing]}, ${OR_REPLACED}: it is left as it is and a new sandbox is made.${advice}`;
}
