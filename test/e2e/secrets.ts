/**
 * The secret scan every e2e stack runs when it closes: no secret value may appear in plaintext in
 * anything Pulumi kept (the exported state, the file backend's checkpoints and backups, the stack's
 * config file) or printed. Values are looked for as written and base64-encoded at any offset (Pulumi
 * and HTTP carry bytes that way), so a leak cannot hide inside an encoded blob.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export interface SecretValue {
  /** What the value is, for the report (never the value itself). */
  label: string;
  value: string;
}

/** A text to scan and where it came from, e.g. `output of \`pulumi up --yes\``. */
export interface Place {
  where: string;
  text: string;
}

export interface Leak {
  label: string;
  where: string;
  form: "plaintext" | "base64";
}

/**
 * Shorter values would match by chance (a 4-character "secret" is in any long log). Every secret
 * of the service (keys, tokens) is far longer; test secrets must be too.
 */
export const MIN_SECRET_LENGTH = 8;

export function assertScannable(value: string): void {
  if (value.length < MIN_SECRET_LENGTH) {
    throw new Error(`a secret to scan for must have at least ${MIN_SECRET_LENGTH} characters, got ${value.length}: it would match by chance`);
  }
}

/** The forms a value is looked for in: as is, and base64 at each of the 3 byte alignments. */
function forms(value: string): [Leak["form"], string][] {
  return [["plaintext", value], ...base64Forms(value).map((b64): [Leak["form"], string] => ["base64", b64])];
}

/**
 * Base64 of `value` wherever it starts in the encoded bytes: encoded after k = 0, 1, 2 bytes, then
 * trimmed of the characters that also depend on the bytes before (2 or 3 of them) or after (the last
 * one of a partial group), so only characters every embedding shares remain.
 */
function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value);
  return [0, 1, 2].map((k) => {
    const encoded = Buffer.concat([Buffer.alloc(k), bytes]).toString("base64").replace(/=+$/, "");
    const end = (k + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 1;
    return encoded.slice([0, 2, 3][k], end);
  });
}

/** Every (secret, place, form) where the secret appears. */
export function findLeaks(secrets: readonly SecretValue[], places: readonly Place[]): Leak[] {
  const leaks: Leak[] = [];
  for (const secret of secrets) {
    for (const place of places) {
      for (const [form, needle] of forms(secret.value)) {
        if (place.text.includes(needle)) leaks.push({ label: secret.label, where: place.where, form });
      }
    }
  }
  return leaks;
}

/** The error text of a failed scan: what leaked, in which form, where. Values are not repeated. */
export function describeLeaks(leaks: readonly Leak[]): string {
  const lines = leaks.map((l) => `  - ${l.label} (${l.form}) in ${l.where}`);
  return `secret scan: ${leaks.length} leak${leaks.length === 1 ? "" : "s"} of secret values:\n${lines.join("\n")}`;
}

/** Every regular file under `dir` as a place (`<what> <relative path>`); a missing dir gives none. */
export function filesUnder(dir: string, what: string): Place[] {
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true, encoding: "utf8" });
  } catch {
    return [];
  }
  return names
    .map((name) => join(dir, name))
    .filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile())
    .map((path) => ({ where: `${what} ${relative(dir, path)}`, text: readFileSync(path, "latin1") }));
}

/**
 * Where in an exported state (`pulumi stack export`, parsed) `value` shows in plaintext: one line per
 * string that holds it, as its resource's type and name and the path inside (`outputs.__memberInputs.ada.envVars.TOKEN`),
 * so a leak report names the field to fix. Values are not repeated.
 */
export function pathsHolding(exported: string, value: string): string[] {
  let state: { deployment?: { resources?: { urn?: string }[] } };
  try {
    state = JSON.parse(exported);
  } catch {
    return [];
  }
  const found: string[] = [];
  const walk = (v: unknown, path: string) => {
    if (typeof v === "string") {
      if (v.includes(value)) found.push(path);
    } else if (Array.isArray(v)) v.forEach((item, i) => walk(item, `${path}[${i}]`));
    else if (v !== null && typeof v === "object") for (const [k, item] of Object.entries(v)) walk(item, path ? `${path}.${k}` : k);
  };
  for (const r of state.deployment?.resources ?? []) {
    const name = (r.urn ?? "").split("::").slice(-2).join("::");
    for (const [k, v] of Object.entries(r)) if (k !== "urn") walk(v, `${name} ${k}`);
  }
  return found;
}
