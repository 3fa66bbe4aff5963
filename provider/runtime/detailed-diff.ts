/**
 * What a diff says of each changed path (`members["ada"].envVars`), carried to the engine. Neither
 * front end's server can: @pulumi/pulumi's provider server (the plugin) and its dynamic-provider host
 * both answer a Diff with the changes, replaces and deleteBeforeReplace of the provider's result and
 * drop the rest. So the Diff request is answered inside a slot (`answeringDiff`, wrapped around the
 * server's own handler at the one place each front end meets its requests: ../plugin/serve.ts, and
 * ./operation.ts for the dynamic host); the runtime's `diff` notes its outcome there (`noteDetailedDiff`),
 * and the server's answer gets the engine's `diffs` and `detailedDiff` before it is sent.
 *
 * Only a kind with a diff of its own says anything per path (../kinds/kind.ts `diff`): for every other
 * kind the answer is the server's, unchanged, and the engine diffs the inputs itself as before.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { DiffOutcome, PropertyChange } from "../diff";
import { likePulumi } from "./like-pulumi";

interface Slot {
  outcome?: DiffOutcome;
}

const slot = new AsyncLocalStorage<Slot>();

/** Notes the outcome of the Diff being answered, for `answeringDiff` to send (outside one, nothing). */
export function noteDetailedDiff(outcome: DiffOutcome): void {
  const held = slot.getStore();
  if (held) held.outcome = outcome;
}

/** The parts of pulumirpc.DiffResponse set here. */
interface DiffResponse {
  setDiffsList(value: string[]): unknown;
  getDetaileddiffMap(): { set(key: string, value: unknown): unknown };
  setHasdetaileddiff(value: boolean): unknown;
}
interface PropertyDiffClass {
  new (): { setKind(kind: number): { setInputdiff(value: boolean): unknown } };
  Kind: Record<"ADD" | "DELETE" | "UPDATE", number>;
}

const KIND: Record<PropertyChange, "ADD" | "DELETE" | "UPDATE"> = { add: "ADD", delete: "DELETE", update: "UPDATE" };

type Callback = (err: unknown, resp?: unknown, ...rest: unknown[]) => unknown;

/**
 * Runs `handle` (the server's Diff handler) with a callback that adds what the runtime noted to the
 * answer before `callback` sends it.
 */
export function answeringDiff(handle: (callback: Callback) => unknown, callback: Callback): void {
  const held: Slot = {};
  slot.run(held, () =>
    handle((err, resp, ...rest) => {
      if (!err && resp && held.outcome) withDetails(resp as DiffResponse, held.outcome);
      return callback(err, resp, ...rest);
    }));
}

function withDetails(resp: DiffResponse, outcome: DiffOutcome): void {
  if (outcome.diffs?.length) resp.setDiffsList(outcome.diffs);
  const paths = Object.entries(outcome.detailedDiff ?? {});
  if (paths.length === 0) return;
  const { PropertyDiff } = likePulumi<{ PropertyDiff: PropertyDiffClass }>("@pulumi/pulumi/proto/provider_pb");
  const map = resp.getDetaileddiffMap();
  // Paths inside the inputs: the engine shows each against the old and new inputs.
  for (const [path, change] of paths) map.set(path, new PropertyDiff().setKind(PropertyDiff.Kind[KIND[change]]).setInputdiff(true));
  resp.setHasdetaileddiff(true);
}
