/** Snapshot create/read/update/delete. The map of calls and the replace rule are in ./spec.ts. */
import type { NewSnapshot, SnapshotInfo } from "../../../sdk/schemas/snapshots";
import { platform } from "../../runtime/context";
import { ignoreNotFound, type InputsOf, type ResourceHandlers, type SpecInputs, type StateOf } from "../../runtime/handlers";
import { resourceLogger } from "../../runtime/log";
import { createOnce } from "../../runtime/outcome";
import { wireBody, type WireMap } from "../../runtime/wire";
import { autoSnapshotName } from "./auto-name";
import { claimSnapshot, unclaimed } from "./claim";
import { nameCandidates } from "../name-claims";

type State = StateOf<"Snapshot">;

export const NEW_SNAPSHOT: WireMap<SpecInputs<"Snapshot">, NewSnapshot> = {
  sandboxID: "not sent: the path names the sandbox",
  name: (name) => ({ name }),
  mode: (mode) => ({ memory: mode === "full" }),
  triggers: "not sent: a change only takes a new snapshot",
};

/**
 * The snapshot listed under `ref` (its ID, or a name: any tag's newest build for a bare one), if the
 * service still has it; an unknown name lists nothing (docs/service.md#sandbox-snapshots).
 */
async function find(ref: string, exact: boolean): Promise<SnapshotInfo | undefined> {
  const { snapshots } = await platform().snapshots.list({ name: ref });
  return exact ? snapshots.find((s) => s.snapshotID === ref) : snapshots[0];
}

const state = (inputs: InputsOf<"Snapshot">, info: SnapshotInfo): State => ({ ...inputs, snapshotID: info.snapshotID, names: info.names });

/**
 * The snapshot under the first of the auto-name's candidates that no other resource's finished create
 * claimed (./claim.ts): one found under it was taken by an interrupted create of this resource (a
 * killed `up`, a lost answer) and is adopted; none, it is taken. Either is then claimed.
 */
async function underAutoName(inputs: InputsOf<"Snapshot">, auto: string): Promise<SnapshotInfo> {
  const log = resourceLogger("Snapshot", inputs);
  const held: string[] = [];
  for (const name of nameCandidates(auto)) {
    const found = await find(name, false);
    if (found && !(await unclaimed(inputs.sandboxID, found.snapshotID))) {
      held.push(name);
      continue;
    }
    if (held.length) log(`warning: snapshot name ${held.map((n) => `"${n}"`).join(", ")} ${held.length > 1 ? "are" : "is"} held by another resource's snapshot (taken under this resource's first name, e.g. before a rename with aliases), so this one is "${name}"`);
    if (found) log(`adopting snapshot ${found.snapshotID}, taken of sandbox ${inputs.sandboxID} by an interrupted run of this resource`);
    // A lost answer is resolved by name.
    const take = () => platform().snapshots.create(inputs.sandboxID, { ...wireBody(NEW_SNAPSHOT, inputs), name });
    const info = found ?? (await createOnce(take, () => find(name, false)));
    await claimSnapshot(inputs.sandboxID, info.snapshotID, log);
    return info;
  }
  throw new Error(`Snapshot: every name from "${auto}" to "${held.at(-1) ?? auto}" is held by another resource's snapshot of sandbox ${inputs.sandboxID}: give this one a \`name\``);
}

/** What a create answers for the snapshot `info`. */
const taken = (inputs: InputsOf<"Snapshot">, info: SnapshotInfo) => ({ id: info.snapshotID, outs: state(inputs, info) });

export const snapshotHandlers: ResourceHandlers<"Snapshot"> = {
  async create(inputs) {
    // Without a chosen name, the auto-name (./auto-name.ts).
    const auto = inputs.name === undefined ? autoSnapshotName(inputs) : undefined;
    if (auto !== undefined) return taken(inputs, await underAutoName(inputs, auto));
    const body = wireBody(NEW_SNAPSHOT, inputs);
    const take = () => platform().snapshots.create(inputs.sandboxID, body);
    // A lost answer is resolved by name; a snapshot with no name at all (no resource key to derive
    // one from) cannot be told from another of the same sandbox, so its create is not repeated.
    const name = body.name;
    return taken(inputs, name === undefined ? await take() : await createOnce(take, () => find(name, false)));
  },

  async read(id, olds) {
    const info = await find(id, true);
    if (!info) return {};
    return { id, props: { ...olds, snapshotID: info.snapshotID, names: info.names } };
  },

  async update(_id, olds, news) {
    // Every input replaces (./spec.ts): the engine calls no update that changes anything.
    return { outs: { ...olds, ...news } };
  },

  async delete(id) {
    await ignoreNotFound(() => platform().snapshots.delete(id));
  },
};
