/** Volume create/read/update/delete. The map of calls, the replace rule and the seed rule are in ./spec.ts. */
import type { NewVolume, VolumeAndToken } from "../../../sdk/schemas/volumes";
import { platform } from "../../runtime/context";
import { resourceLogger } from "../../runtime/log";
import { autoNamed, createOnce, isAlreadyExists } from "../../runtime/outcome";
import { PartialCreateError } from "../../runtime/partial";
import { ignoreNotFound, isNotFound, type InputsOf, type ResourceHandlers, type SpecInputs, type StateOf } from "../../runtime/handlers";
import { heldByAnother, passedOverNote } from "../name-claims";
import { volumeSpec } from "./spec";
import { wireBody, type WireMap } from "../../runtime/wire";
import { clearPending, dropLegacyClaim, holderOfVolume, markPending, volumeNamed } from "./claim";
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

/**
 * The volume named `name` when this resource may take it after its create was refused as a name
 * taken: one a killed run of it left, which still carries that run's pending mark (./claim.ts). One
 * without (a finished create's) is refused: `check` chose this name as free, so another run took it since.
 */
async function ownNamed(name: string, inputs: InputsOf<"Volume">): Promise<VolumeAndToken | undefined> {
  const volume = await volumeNamed(name);
  if (volume && (await holderOfVolume(volume, inputs.__nonce ?? "")) === "claimed") throw heldByAnother("volume name", name, "volume", volume.volumeID);
  return volume;
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
    const log = resourceLogger("Volume", inputs);
    const passedOver = passedOverNote(volumeSpec, inputs, "volume name");
    if (passedOver) log(passedOver);
    // After a lost answer, the volume under the name is the one this create made: it has no mark yet,
    // and `check` found the name free (one a killed run left answers the create with a conflict).
    const volume = await createOnce(() => platform().volumes.create(body), () => volumeNamed(name)).catch(async (err) => {
      // An auto-name `check` chose is held by no finished create of another resource (./claim.ts), so a
      // volume holding it with another run's pending mark was left by an interrupted run of this same
      // resource: adopt it rather than fail.
      const adopted = autoNamed(inputs, "name") && isAlreadyExists(err) ? await ownNamed(name, inputs) : undefined;
      if (!adopted) throw err;
      log(`adopting volume ${adopted.volumeID} (name ${name}) made by an interrupted run`);
      return adopted;
    });
    await markPending(volume, inputs.__nonce, log);
    const made = state(inputs, volume);
    // The mark goes once the engine is about to record the volume: as made, or seeded part way (a partial create).
    const outs = inputs.content
      ? await seed(volume, made, seededBefore({}), inputs).catch(async (err: unknown) => {
        if (err instanceof PartialCreateError) await clearPending(volume, inputs.__nonce, log);
        throw err;
      })
      : made;
    await clearPending(volume, inputs.__nonce, log);
    return { id: volume.volumeID, outs };
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
    await dropLegacyClaim(volume, olds.__nonce, resourceLogger("Volume", news));
    return { outs: await seed(volume, outs, seededBefore(olds), news) };
  },

  async delete(id) {
    await ignoreNotFound(() => platform().volumes.delete(id));
  },
};
