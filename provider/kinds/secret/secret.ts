/** Secret create/read/update/delete. The map of calls and the replace rule are in ./spec.ts. */
import type { NewSecret, SecretInfo, SecretUpdate } from "../../../sdk/schemas/secrets";
import { platform } from "../../runtime/context";
import { ignoreNotFound, isNotFound, type InputsOf, type ResourceHandlers, type SpecInputs, type StateOf } from "../../runtime/handlers";
import { autoNamed, createOnce } from "../../runtime/outcome";
import { wireBody, type WireMap } from "../../runtime/wire";

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

/** The secret named `name`, if the team has one. */
async function findByName(name: string): Promise<SecretInfo | undefined> {
  try {
    return await platform().secrets.get(name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

const state = (inputs: InputsOf<"Secret">, info: SecretInfo): State => ({
  ...inputs, name: info.name, secretID: info.secretID, currentVersion: info.currentVersion,
});

export const secretHandlers: ResourceHandlers<"Secret"> = {
  async create(inputs) {
    const name = inputs.name ?? ""; // `check` always sets it: the user's, or an auto-name
    const body = { ...wireBody(NEW_SECRET, inputs), name } as NewSecret;
    // Found after a create whose answer was lost, the secret may be an earlier run's, holding what that
    // run gave: the program's value and metadata are written over it (a create that did go through
    // wrote the same, and only gains a version).
    const found = async () => {
      const earlier = await findByName(name);
      return earlier && platform().secrets.update(earlier.secretID, { value: inputs.value, metadata: inputs.metadata ?? {} });
    };
    const info = await createOnce(() => platform().secrets.create(body), found).catch(async (err) => {
      // An auto-name comes from this resource alone: a secret holding it was made by an interrupted
      // run of this same resource, so it is adopted, with this value written over whatever it holds.
      const adopted = autoNamed(inputs, "name") && (err as { status?: number }).status === 409 ? await findByName(name) : undefined;
      if (!adopted) throw err;
      return platform().secrets.update(adopted.secretID, { value: inputs.value, metadata: inputs.metadata ?? {} });
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
    const metadata = olds.metadata === undefined && Object.keys(info.metadata).length === 0 ? undefined : info.metadata;
    return { id, props: { ...olds, name: info.name, metadata, secretID: info.secretID, currentVersion: info.currentVersion } };
  },

  async update(id, _olds, news) {
    // The service replaces metadata only when it is sent: `{}` clears what the program dropped.
    const body = { metadata: {}, ...wireBody(SECRET_UPDATE, news) } as SecretUpdate;
    return { outs: state(news, await platform().secrets.update(id, body)) };
  },

  async delete(id) {
    await ignoreNotFound(() => platform().secrets.delete(id));
  },
};
