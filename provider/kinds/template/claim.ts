/**
 * A Template's claim (../name-claims.ts): a mark in the template's file cache (./record.ts), written
 * when its create ends, built or recorded part way. Templates carry no metadata, and the file cache is
 * what a client can write and ask about (and no user reads). The mark names the template alone: what
 * it says is that a create of it finished, so that some resource's state records it. A run killed
 * during the build leaves none, and its re-run adopts the template as before.
 *
 * The mark's hash is a plain digest of the template's ID (../identity.ts), the same under every API
 * key of the team: 0.3 keyed it by the API key (an HMAC, ../../runtime/made-from.ts), so after a key
 * rotation every template looked unclaimed and a new resource under a renamed one's first name took
 * it. Nothing secret goes into it, so nothing needs the key. A template 0.3 claimed carries the HMAC
 * mark, still read, which holds only under the key of that time.
 */
import type { CallOptions } from "../../../sdk/transport/http";
import { platform } from "../../runtime/context";
import type { Logger } from "../../runtime/log";
import { engineGone } from "../../runtime/operation";
import { madeFromDigest } from "../../runtime/made-from";
import { identityDigest } from "../identity";
import { markWarning, type NameClaims } from "../name-claims";
import { hasMark, writeMark } from "./record";

const claimHash = (templateID: string) => identityDigest("pulumi-sandbox/template-claim", templateID);
/** 0.3's claim: keyed by the API key it was written with. */
const legacyClaimHash = (templateID: string) => madeFromDigest("template-claim", { templateID });

/** The ID of the team's template under `alias`, if there is one. */
export async function templateWithAlias(alias: string, call?: CallOptions): Promise<string | undefined> {
  return (await platform().templates.list(call)).find((t) => t.aliases.includes(alias))?.templateID;
}

/** Whether a finished create claimed the template. */
export async function isClaimed(templateID: string, call?: CallOptions): Promise<boolean> {
  return (await hasMark(templateID, claimHash(templateID), call)) || hasMark(templateID, legacyClaimHash(templateID), call);
}

export const templateClaims: NameClaims = {
  field: "alias",
  async holder(alias, _nonce, call) {
    const templateID = await templateWithAlias(alias, call);
    if (templateID === undefined) return "free";
    return (await isClaimed(templateID, call)) ? "claimed" : "unclaimed";
  },
};

/**
 * Claims the template; not written, it stays adoptable by a new resource under this one's first name,
 * which the row says. Not when the engine went away during the create (a killed `up` whose provider
 * lives on, its build wait stopped): nothing records the template, and the re-run must adopt it.
 */
export async function claimTemplate(templateID: string, log: Logger): Promise<void> {
  if (engineGone()) return;
  try {
    await writeMark(templateID, claimHash(templateID));
  } catch (err) {
    log(markWarning("template", templateID, err));
  }
}
