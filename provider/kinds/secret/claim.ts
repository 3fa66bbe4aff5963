/**
 * A Secret's claim (../name-claims.ts): the nonce of the resource that made it, in the secret's own
 * metadata under `pulumi-sandbox.claim`, sent with the create itself. A second call to add it later
 * would write the value a second time (the service takes no metadata-only update), so a secret carries
 * its claim from its first version: one found under the name with another resource's nonce, or none
 * (made before claims), is never taken over; `check` chooses the next name instead, and the create says so.
 */
import type { SecretInfo, SecretMetadata } from "../../../sdk/schemas/secrets";
import type { CallOptions } from "../../../sdk/transport/http";
import { platform } from "../../runtime/context";
import { isNotFound } from "../../runtime/handlers";
import { CLAIM_KEY, type Holder, type NameClaims } from "../name-claims";

/** The team's secret named `name`, if there is one. */
export async function secretNamed(name: string, call?: CallOptions): Promise<SecretInfo | undefined> {
  try {
    return await platform().secrets.get(name, call);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export function holderOfSecret(info: SecretInfo, nonce: string): Holder {
  return nonce !== "" && info.metadata[CLAIM_KEY] === nonce ? "ours" : "claimed";
}

export const secretClaims: NameClaims = {
  field: "name",
  async holder(name, nonce, call) {
    const info = await secretNamed(name, call);
    return info ? holderOfSecret(info, nonce) : "free";
  },
};

/** The metadata the service is sent: the program's, and this resource's claim. */
export function claimed(metadata: SecretMetadata | undefined, nonce: string | undefined): SecretMetadata {
  return nonce ? { ...metadata, [CLAIM_KEY]: nonce } : { ...metadata };
}

/** The metadata as the program sees it: the claim is the provider's. */
export function unclaimed(metadata: SecretMetadata): SecretMetadata {
  return Object.fromEntries(Object.entries(metadata).filter(([key]) => key !== CLAIM_KEY));
}
