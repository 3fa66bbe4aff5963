/**
 * The last net under every answer that becomes state (a check's inputs, a create's, update's or
 * read's outputs, the properties of a partial create), for both front ends (./secrets.ts `wrapAnswer`).
 *
 * Why: the engine stores in plain text whatever a provider answers unwrapped, except (for the
 * dynamic-provider host) the top-level results named like an input that came in secret. The spec's
 * lists (`secretInputs`, `secretFrom`, `secretWithin`) name the public fields that copy an input; the
 * provider's own fields (`__…`: a fleet's per-member maps, a resume record, whatever a kind adds next)
 * are named by no list, and a copy of a secret input there (a fleet member's inputs kept after a failed
 * change) reached `pulumi stack export` in plain text. So, instead of one more list to keep in step,
 * every string that equals or contains one of the program's secrets (`__secrets`) is wrapped as the
 * engine's secret where it is, in any field, `__…` or public (a fleet member's `urls` when its `ports`
 * came in secret: the URL names the port). A number equal to a secret number is wrapped too; a map
 * with a key naming a secret (`urls` by port) is wrapped whole, since a key cannot be. `__secrets`
 * itself is wrapped whole; `__provider` (the provider's code text, read by the host) is left alone.
 *
 * Wrapping more than needed costs a user a `[secret]` where a plain value would do, never a leak: a
 * value is never unwrapped. Cost: one walk of the answer, copying only what changes; each string is
 * looked up in a set, then searched for each secret no longer than it (a fleet of 500 members holds
 * some 15,000 strings; a program, a few secrets).
 */
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";

type Obj = Record<string, unknown>;

/** The program's secrets as the net matches them: strings (equal or contained) and numbers (equal). */
export interface NetSecrets {
  strings: readonly string[];
  numbers: ReadonlySet<number>;
}

/** The secrets the `__secrets` of each of `sources` carries (strings, and numbers the program marked secret). */
export function netSecretsOf(...sources: Obj[]): NetSecrets {
  const strings = new Set<string>();
  const numbers = new Set<number>();
  for (const source of sources) {
    if (!Array.isArray(source.__secrets)) continue;
    for (const v of source.__secrets) {
      if (typeof v === "string" && v !== "") strings.add(v);
      else if (typeof v === "number" && Number.isFinite(v)) numbers.add(v);
    }
  }
  return { strings: [...strings].sort((a, b) => a.length - b.length), numbers };
}

export const isWrapped = (value: unknown): boolean =>
  value !== null && typeof value === "object" && (value as Obj)[specialSigKey] === specialSecretSig;

export const wrapped = (value: unknown): Obj => ({ [specialSigKey]: specialSecretSig, value });

/** Whether a string or number is, or holds, one of the secrets. */
function matches(value: unknown, secrets: NetSecrets, exact: ReadonlySet<string>): boolean {
  if (typeof value === "number") return secrets.numbers.has(value);
  if (typeof value !== "string" || value === "") return false;
  if (exact.has(value)) return true;
  for (const s of secrets.strings) {
    if (s.length > value.length) return false;
    if (value.includes(s)) return true;
  }
  return false;
}

/** `value` with each part that shows a secret wrapped; the same object where nothing changes. */
function netted(value: unknown, secrets: NetSecrets, exact: ReadonlySet<string>): unknown {
  if (value === null || typeof value !== "object") return matches(value, secrets, exact) ? wrapped(value) : value;
  if (isWrapped(value)) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const next = netted(item, secrets, exact);
      if (next !== item) (out ??= [...value])[i] = next;
    });
    return out ?? value;
  }
  const obj = value as Obj;
  let out: Obj | undefined;
  for (const [key, item] of Object.entries(obj)) {
    if (matches(key, secrets, exact) || (key !== "" && secrets.numbers.has(Number(key)))) return wrapped(value);
    const next = netted(item, secrets, exact);
    if (next !== item) (out ??= { ...obj })[key] = next;
  }
  return out ?? value;
}

/** Fields the net leaves as they are: the provider's code text, which the dynamic-provider host reads. */
const UNTOUCHED = new Set(["__provider"]);

/** `values` (an answer, already wrapped by the spec's lists) with every remaining copy of a program secret wrapped. */
export function withSecretsNetted(values: Obj, secrets: NetSecrets): Obj {
  if (secrets.strings.length === 0 && secrets.numbers.size === 0) return values;
  const exact = new Set(secrets.strings);
  const out: Obj = { ...values };
  for (const [key, value] of Object.entries(values)) {
    if (UNTOUCHED.has(key) || value === undefined || value === null) continue;
    if (key === "__secrets") out[key] = isWrapped(value) ? value : wrapped(value);
    else out[key] = netted(value, secrets, exact);
  }
  return out;
}
