/** Secret create/read/update/delete. The map of calls and the replace rule are in ./spec.ts. */
import type { NewSecret, SecretInfo, SecretUpdate } from "../../../sdk/schemas/secrets";
import { platform } from "../../runtime/context";
import { ignoreNotFound, isNotFound, type InputsOf, type ResourceHandlers, type SpecInputs, type StateOf } from "../../runtime/handlers";
import { autoNamed, createOnce } from "../../runtime/outcome";
import { resourceLogger } from "../../runtime/log";
import { heldByAnother, passedOverNote } from "../name-claims";
import { secretSpec } from "./spec";
import { wireBody, type WireMap } from "../../runtime/wire";
import { claimed, holderOfSecret, secretNamed, unclaimed } from "./claim";

type State = StateOf<"Secret">;

export const NEW_SECRET: WireMap<SpecInputs<"Secret">, NewSecret> = {
  name: (name) => ({ name }),
  value: (value) => ({ value }),
  metadata: (metadata) => ({ metadata }),
};

export const SECRET_UPDATE: WireMap<SpecInputs<"Secret">, SecretUpdate> = {
  name: "not sent: no call renames a secret, a new name replaces it",
  value: (value) => ({ value }),
  metadata: (metadata) => ({ metadata }),
};

const state = (inputs: InputsOf<"Secret">, info: SecretInfo): State => ({
  ...inputs, name: info.name, secretID: info.secretID, currentVersion: info.currentVersion,
});

export const secretHandlers: ResourceHandlers<"Secret"> = {
  async create(inputs) {
    const name = inputs.name ?? ""; // `check` always sets it: the user's, or an auto-name
    const passedOver = passedOverNote(secretSpec, inputs, "secret name");
    if (passedOver) resourceLogger("Secret", inputs)(passedOver);
    const metadata = claimed(inputs.metadata, inputs.__nonce);
    const body = { ...wireBody(NEW_SECRET, inputs), name, metadata } as NewSecret;
    // A secret under the name that carries this resource's claim was made by this create, whose answer
    // was lost: the program's value and metadata are written over it (a create that did go through
    // wrote the same, and only gains a version). One without it is another resource's.
    const own = async (): Promise<SecretInfo | undefined> => {
      const earlier = await secretNamed(name);
      if (earlier && holderOfSecret(earlier, inputs.__nonce ?? "") !== "ours") throw heldByAnother("secret name", name, "secret", earlier.secretID);
      return earlier && platform().secrets.update(earlier.secretID, { value: inputs.value, metadata });
    };
    const info = await createOnce(() => platform().secrets.create(body), own).catch(async (err) => {
      const adopted = autoNamed(inputs, "name") && (err as { status?: number }).status === 409 ? await own() : undefined;
      if (!adopted) throw err;
      return adopted;
    });
    return { id: info.secretID, outs: state(inputs, info) };
  },

  async read(id, olds) {
    let info: SecretInfo;
    try {
      info = await platform().secrets.get(id);
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    // The value is never answered: state keeps the one the program gave.
    const own = unclaimed(info.metadata);
    const metadata = olds.metadata === undefined && Object.keys(own).length === 0 ? undefined : own;
    return { id, props: { ...olds, name: info.name, metadata, secretID: info.secretID, currentVersion: info.currentVersion } };
  },

  async update(id, _olds, news) {
    // The service replaces metadata only when it is sent: `{}` clears what the program dropped.
    const body = { metadata: {}, ...wireBody(SECRET_UPDATE, news) } as SecretUpdate;
    body.metadata = claimed(body.metadata, news.__nonce);
    return { outs: state(news, await platform().secrets.update(id, body)) };
  },

  async delete(id) {
    await ignoreNotFound(() => platform().secrets.delete(id));
  },
};
