/** Volume create/read/delete. The map of calls and the replace rule are in ../specs/volume.ts. */
import type { VolumeAndToken } from "../../sdk/schemas/volumes";
import { platform } from "../runtime/context";
import { autoNamed, createOnce, isAlreadyExists } from "../runtime/outcome";
import { ignoreNotFound, isNotFound, type Inputs, type Outputs, type ResourceHandlers } from "../runtime/handlers";

function outputs(inputs: Inputs, volume: VolumeAndToken): Outputs {
  return { ...inputs, name: volume.name, volumeID: volume.volumeID, volumeId: volume.volumeID, token: volume.token };
}

async function findByName(name: string): Promise<VolumeAndToken | undefined> {
  const { volumes } = platform();
  const listed = (await volumes.list()).find((v) => v.name === name);
  return listed ? volumes.get(listed.volumeID) : undefined;
}

export const volumeHandlers: ResourceHandlers = {
  async create(inputs) {
    const name = String(inputs.name);
    const volume = await createOnce(() => platform().volumes.create({ name }), () => findByName(name)).catch(async (err) => {
      // An auto-name is derived from this resource alone, so a volume holding it was made by an
      // interrupted run of this same resource: adopt it rather than fail.
      const adopted = autoNamed(inputs, "name") && isAlreadyExists(err) ? await findByName(name) : undefined;
      if (!adopted) throw err;
      return adopted;
    });
    return { id: volume.volumeID, outs: outputs(inputs, volume) };
  },

  async read(id, olds) {
    try {
      const volume = await platform().volumes.get(id);
      // The service mints a new token on every GET: keep the stored one, a fresh token is not drift.
      return { id, props: { ...olds, name: volume.name, volumeID: volume.volumeID, volumeId: volume.volumeID, token: olds.token ?? volume.token } };
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
