/**
 * The engine's special values as they arrive in a native provider's requests. The plugin accepts
 * secrets (see ./serve.ts), so a secret input comes wrapped (`{ [sig]: secretSig, value }`) instead of
 * stripped, and an output value (`{ [sig]: outputValueSig, value?, secret? }`) may stand for a value
 * not yet known. The runtime knows neither: it sees plain values, the unknown sentinel, and the
 * plaintext of the secrets (to hide them from logs); the plugin wraps secrets again on the way back.
 */
import { specialOutputValueSig, specialSecretSig, specialSigKey, unknownValue } from "@pulumi/pulumi/runtime/rpc";

type Obj = Record<string, unknown>;

export interface Unwrapped {
  /** The values with every wrapper removed (an unknown output value becomes the unknown sentinel). */
  plain: Obj;
  /** Top-level keys that held a secret anywhere inside. */
  secretKeys: Set<string>;
  /** The plaintext of every secret string (for the runtime's log redaction) and number (`__secrets`). */
  secretValues: (string | number)[];
}

export function unwrap(values: Obj | undefined): Unwrapped {
  const secretKeys = new Set<string>();
  const secretValues: (string | number)[] = [];
  const plain: Obj = {};
  for (const [key, value] of Object.entries(values ?? {})) {
    const found: (string | number)[] = [];
    const { value: inner, secret } = strip(value, false, found);
    plain[key] = inner;
    if (secret) secretKeys.add(key);
    secretValues.push(...found);
  }
  return { plain, secretKeys, secretValues: [...new Set(secretValues)] };
}

/** `value` without wrappers; `secret` when any part was secret; secret strings and numbers collected in `found`. */
function strip(value: unknown, inSecret: boolean, found: (string | number)[]): { value: unknown; secret: boolean } {
  if (Array.isArray(value)) {
    const parts = value.map((v) => strip(v, inSecret, found));
    return { value: parts.map((p) => p.value), secret: parts.some((p) => p.secret) };
  }
  if (value === null || typeof value !== "object") {
    if (inSecret && typeof value === "string" && value !== "" && value !== unknownValue) found.push(value);
    // A number too: state hides it wherever it shows (../runtime/secret-net.ts); logs hide only strings.
    if (inSecret && typeof value === "number" && Number.isFinite(value)) found.push(value);
    return { value, secret: inSecret };
  }
  const obj = value as Obj;
  if (obj[specialSigKey] === specialSecretSig) return { ...strip(obj.value, true, found), secret: true };
  if (obj[specialSigKey] === specialOutputValueSig) {
    const secret = inSecret || obj.secret === true;
    if (!("value" in obj)) return { value: unknownValue, secret };
    return { ...strip(obj.value, secret, found), secret };
  }
  const out: Obj = {};
  let secret = false;
  for (const [k, v] of Object.entries(obj)) {
    const part = strip(v, inSecret, found);
    out[k] = part.value;
    secret ||= part.secret;
  }
  return { value: out, secret: secret || inSecret };
}
