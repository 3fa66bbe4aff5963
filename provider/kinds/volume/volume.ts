/** Volume create/read/update/delete. The map of calls, the replace rule and the seed rule are in ./spec.ts. */
import type { NewVolume, VolumeAndToken } from "../../../sdk/schemas/volumes";
import { platform } from "../../runtime/context";
import { resourceLogger } from "../../runtime/log";
import { autoNamed, createOnce, isAlreadyExists } from "../../runtime/outcome";
import { PartialCreateError } from "../../runtime/partial";
import { ignoreNotFound, isNotFound, type InputsOf, type ResourceHandlers, type SpecInputs, type StateOf } from "../../runtime/handlers";
import { wireBody, type WireMap } from "../../runtime/wire";
import { applySeed, findDrift, type SeedBefore } from "./seed";
import { readContent } from "./source";

export const NEW_VOLUME: WireMap<SpecInputs<"Volume">, NewVolume> = {
  name: (name) => ({ name }),
  content: "not sent: written through the content API after the volume exists",
};

type State = StateOf<"Volume">;

function state(inputs: InputsOf<"Volume">, volume: VolumeAndToken, token = volume.token): State {
  return { contentWritten: {}, contentDrift: {}, ...inputs, name: volume.name, volumeID: volume.volumeID, volumeId: volume.volumeID, token };
}

async function findByName(name: string): Promise<VolumeAndToken | undefined> {
  const { volumes } = platform();
  const listed = (await volumes.list()).find((v) => v.name === name);
  return listed ? volumes.get(listed.volumeID) : undefined;
}

/** What the provider wrote before, from state (older state has no seed outputs). */
function seededBefore(olds: Partial<State>): SeedBefore {
  return { files: olds.content?.files ?? {}, written: olds.contentWritten ?? {}, drift: olds.contentDrift ?? {} };
}

/**
 * Brings the volume's seeded files from `before` to `inputs.content`, and returns the state that
 * records the outcome. A failure part way still records what was done (PartialCreateError), so the next
 * `up` continues from there instead of meeting its own uploads as someone else's files.
 */
async function seed(volume: VolumeAndToken, outs: State, before: SeedBefore, inputs: InputsOf<"Volume">): Promise<State> {
  const client = platform().volumes.content(volume);
  const log = resourceLogger("Volume", inputs);
  try {
    // Read again: the files are uploaded as they are now (and recorded so), not as `check` saw them.
    const sources = inputs.content ? readContent(inputs.content).sources : {};
    const done = await applySeed(client, before, inputs.content, sources, log);
    const content = inputs.content ? { ...inputs.content, files: done.files } : undefined;
    const next: State = { ...outs, content, contentWritten: done.written, contentDrift: done.drift };
    if (done.failure) {
      throw new PartialCreateError(`Volume ${volume.volumeID}: seeding stopped: ${done.failure}\nWhat was written is recorded; the next \`pulumi up\` continues.`, volume.volumeID, next, inputs.__provider);
    }
    return next;
  } finally {
    await client.close();
  }
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
    const outs = state(inputs, volume);
    if (!inputs.content) return { id: volume.volumeID, outs };
    return { id: volume.volumeID, outs: await seed(volume, outs, seededBefore({}), inputs) };
  },

  async read(id, olds) {
    let volume: VolumeAndToken;
    try {
      volume = await platform().volumes.get(id);
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    // The service mints a new token on every GET: keep the stored one, a fresh token is not drift.
    const props = state(olds, volume, olds.token ?? volume.token);
    if (!olds.content) return { id, props };
    const client = platform().volumes.content(volume);
    try {
      return { id, props: { ...props, contentDrift: await findDrift(client, olds.content, olds.contentWritten ?? {}) } };
    } finally {
      await client.close();
    }
  },

  async update(id, olds, news) {
    // `content` is the one input that changes in place; the name replaces (./spec.ts).
    const volume = await platform().volumes.get(id);
    const outs = { ...state(news, volume, olds.token ?? volume.token), contentWritten: olds.contentWritten ?? {}, contentDrift: olds.contentDrift ?? {} };
    return { outs: await seed(volume, outs, seededBefore(olds), news) };
  },

  async delete(id) {
    await ignoreNotFound(() => platform().volumes.delete(id));
  },
};
