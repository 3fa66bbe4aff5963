/** Snapshot create/read/update/delete. The map of calls and the replace rule are in ./spec.ts. */
import type { NewSnapshot, SnapshotInfo } from "../../../sdk/schemas/snapshots";
import { platform } from "../../runtime/context";
import { ignoreNotFound, type InputsOf, type ResourceHandlers, type SpecInputs, type StateOf } from "../../runtime/handlers";
import { resourceLogger } from "../../runtime/log";
import { createOnce } from "../../runtime/outcome";
import { wireBody, type WireMap } from "../../runtime/wire";
import { autoSnapshotName } from "./auto-name";

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

export const snapshotHandlers: ResourceHandlers<"Snapshot"> = {
  async create(inputs) {
    // Without a chosen name, the auto-name (./auto-name.ts): what an interrupted create of this
    // resource took under it is adopted.
    const auto = inputs.name === undefined ? autoSnapshotName(inputs) : undefined;
    const adopted = auto === undefined ? undefined : await find(auto, false);
    if (adopted) {
      resourceLogger("Snapshot", inputs)(`adopting snapshot ${adopted.snapshotID}, taken of sandbox ${inputs.sandboxID} by an interrupted run of this resource`);
      return { id: adopted.snapshotID, outs: state(inputs, adopted) };
    }
    const body: NewSnapshot = { ...wireBody(NEW_SNAPSHOT, inputs), ...(auto === undefined ? {} : { name: auto }) };
    const take = () => platform().snapshots.create(inputs.sandboxID, body);
    // A lost answer is resolved by name; a snapshot with no name at all (no resource key to derive
    // one from) cannot be told from another of the same sandbox, so its create is not repeated.
    const name = body.name;
    const info = name === undefined ? await take() : await createOnce(take, () => find(name, false));
    return { id: info.snapshotID, outs: state(inputs, info) };
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
