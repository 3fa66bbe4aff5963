/**
 * Secret IDs in the service's format (docs/service.md#secrets): `sec_` and a TypeID suffix, the 26
 * lower-case Crockford base32 digits of a time-ordered (v7) UUID, as the service writes
 * `sec_01kyjhkfvse96rg4d2qzd9enft`.
 */
import { randomBytes } from "node:crypto";

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";
/** The prefix the service reserves: a selector starting with it is an ID, never a name. */
export const SECRET_ID_PREFIX = "sec_";
/** 26 digits of 5 bits hold the UUID's 128 bits under two leading zero bits, so the first is 0–7. */
const SECRET_ID_RE = /^sec_[0-7][0-9a-hjkmnp-tv-z]{25}$/;

/** A new secret ID: a v7 UUID (milliseconds first, so IDs sort by creation) in TypeID form. */
export function newSecretID(now = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  let n = BigInt(`0x${bytes.toString("hex")}`);
  let digits = "";
  for (let i = 0; i < 26; i++) {
    digits = CROCKFORD[Number(n & 31n)]! + digits;
    n >>= 5n;
  }
  return SECRET_ID_PREFIX + digits;
}

/** True for a well-formed, lower-case secret ID. */
export function isSecretID(value: string): boolean {
  return SECRET_ID_RE.test(value);
}
