/**
 * Identifiers and secrets in the real service's formats: sandbox `i` + 20 [a-z0-9], template 20
 * [a-z0-9], builds and volumes UUIDs, API key `e2b_` + hex, access token `sk_e2b_` + hex.
 */
import { randomBytes, randomInt, randomUUID } from "node:crypto";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `n` characters from [a-z0-9], uniformly (no modulo bias). */
export function randomAlnum(n: number): string {
  let out = "";
  for (let i = 0; i < n; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** `bytes` random bytes as lowercase hex (so `2 * bytes` characters). */
export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString("hex");
}

/** Sandbox ID: `i` + 20 [a-z0-9]. */
export const newSandboxID = (): string => `i${randomAlnum(20)}`;
/** Template ID: 20 [a-z0-9]. */
export const newTemplateID = (): string => randomAlnum(20);
/** A random (v4) UUID, for build and volume IDs. */
export const newUUID = (): string => randomUUID();
/** Default API key of an emulator start: `e2b_` + 40 hex characters. */
export const newApiKey = (): string => `e2b_${randomHex(20)}`;
/** Default access token of an emulator start: `sk_e2b_` + 40 hex characters. */
export const newAccessToken = (): string => `sk_e2b_${randomHex(20)}`;

/** True for a UUID in canonical 8-4-4-4-12 hex form (any case). */
export function isUUID(value: string): boolean {
  return UUID_RE.test(value);
}
