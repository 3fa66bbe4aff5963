/** Volume create/read/delete. The map of calls and the replace rule are in ../specs/volume.ts. */
import type { NewVolume, VolumeAndToken } from "../../sdk/schemas/volumes";
import { platform } from "../runtime/context";
import { autoNamed, createOnce, isAlreadyExists } from "../runtime/outcome";
import { ignoreNotFound, isNotFound, type InputsOf, type ResourceHandlers, type SpecInputs, type StateOf } from "../runtime/handlers";
import { wireBody, type WireMap } from "../runtime/wire";

export const NEW_VOLUME: WireMap<SpecInputs<"Volume">, NewVolume> = {
  name: (name) => ({ name }),
};

function state(inputs: InputsOf<"Volume">, volume: VolumeAndToken, token = volume.token): StateOf<"Volume"> {
  return { ...inputs, name: volume.name, volumeID: volume.volumeID, volumeId: volume.volumeID, token };
}

async function findByName(name: string): Promise<VolumeAndToken | undefined> {
  const { volumes } = platform();
  const listed = (await volumes.list()).find((v) => v.name === name);
  return listed ? volumes.get(listed.volumeID) : undefined;
}

export const volumeHandlers: ResourceHandlers<"Volume"> = {
  async create(inputs) {
    const name = inputs.name ?? ""; // `check` always sets it: the user's, or an auto-name
    const body: NewVolume = { ...wireBody(NEW_VOLUME, inputs), name };
    const volume = await createOnce(() => platform().volumes.create(body), () => findByName(name)).catch(async (err) => {
      // An auto-name is derived from this resource alone, so a volume holding it was made by an
      // interrupted run of this same resource: adopt it rather than fail.
      const adopted = autoNamed(inputs, "name") && isAlreadyExists(err) ? await findByName(name) : undefined;
      if (!adopted) throw err;
      return adopted;
    });
    return { id: volume.volumeID, outs: state(inputs, volume) };
  },

  async read(id, olds) {
    try {
      // The service mints a new token on every GET: keep the stored one, a fresh token is not drift.
      const volume = await platform().volumes.get(id);
      return { id, props: state(olds, volume, olds.token ?? volume.token) };
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
  },

  async update(_id, olds) {
    return { outs: olds }; // every input replaces; nothing to change in place
  },

  async delete(id) {
    await ignoreNotFound(() => platform().volumes.delete(id));
  },
};
