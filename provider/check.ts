/**
 * Generic `check`: validates inputs against the resource's spec before any API call, applies
 * defaults, fills auto-names, and lets the engine's unknown values through at preview.
 *
 * Validation is per top-level field, so an unknown value (preview) skips only the field that holds
 * it; every other field is still checked and defaulted. Each failure names the field path and the rule.
 *
 * The path goes in the reason, never in the failure's `property`: for a named property the engine
 * prints the program's input value beside the reason, and that value may be a secret (a wrongly typed
 * `envVars`, or anything a user wrapped in pulumi.secret) which would then reach the log in plaintext.
 */
import type { z } from "zod";
import { mintNonce, noteChecked } from "./kinds/identity";
import { containsUnknown, getPath, INTERNAL_INPUTS, sameValue, underCurrentNames, UNKNOWN, type ResourceSpec } from "./spec";

export interface CheckFailure {
  /** Always "": see the header. */
  property: string;
  /** `<path>: <rule>`. */
  reason: string;
}

const failure = (path: string, rule: string): CheckFailure => ({ property: "", reason: `${path}: ${rule}` });

export interface CheckOutcome {
  inputs?: Record<string, unknown>;
  failures?: CheckFailure[];
}

type Obj = Record<string, unknown>;

export function checkInputs(spec: ResourceSpec, olds: Obj, given: Obj): CheckOutcome {
  const shape = spec.inputs.shape as Record<string, z.ZodType>;
  const renamed = spec.renamed ?? {};
  const failures: CheckFailure[] = [...unknownFieldFailures(spec, shape, given), ...renameFailures(renamed, given)];
  // A failure names the field as the program wrote it, under a deprecated name too.
  const writtenAs = Object.fromEntries(Object.entries(renamed).filter(([old]) => given[old] !== undefined).map(([old, current]) => [current, old]));
  const news = underCurrentNames(spec, given);
  const out: Obj = {};
  for (const [key, schema] of Object.entries(shape)) {
    if (key in renamed) continue;
    const value = news[key];
    if (containsUnknown(value)) {
      out[key] = value;
      continue;
    }
    // reportInput: zod 4 leaves `issue.input` out otherwise, and describeIssue needs it to tell a wrong type from a missing value.
    const parsed = schema.safeParse(value, { reportInput: true });
    if (parsed.success) {
      if (parsed.data !== undefined) out[key] = parsed.data;
    } else {
      failures.push(...parsed.error.issues.map((issue) => toFailure(writtenAs[key] ?? key, issue)));
    }
  }
  if (failures.length === 0 && spec.crossChecks) {
    const known = Object.fromEntries(Object.entries(out).filter(([, v]) => !containsUnknown(v)));
    const unknown = new Set(Object.keys(out).filter((k) => !(k in known)));
    failures.push(...spec.crossChecks(known, unknown).map(({ path, reason }) => failure(path, reason)));
  }
  if (failures.length > 0) return { failures };
  return { inputs: withInternals(spec, olds, news, out) };
}

function unknownFieldFailures(spec: ResourceSpec, shape: Record<string, unknown>, news: Obj): CheckFailure[] {
  const internal = new Set<string>(INTERNAL_INPUTS);
  const valid = Object.keys(shape).filter((k) => !(k in (spec.renamed ?? {})));
  return Object.keys(news)
    .filter((k) => !(k in shape) && !internal.has(k) && news[k] !== undefined)
    .map((k) => failure(k, `unknown property of ${spec.kind}; valid properties are: ${valid.join(", ")}`));
}

function renameFailures(renamed: Readonly<Record<string, string>>, news: Obj): CheckFailure[] {
  return Object.entries(renamed)
    .filter(([old, current]) => news[old] !== undefined && news[current] !== undefined)
    .map(([old, current]) => failure(old, `is the deprecated name of ${current}; give only ${current}`));
}

/** A zod issue as `path: rule`, with the path written the way users write it (`volumeMounts[1].path`). */
function toFailure(field: string, issue: z.core.$ZodIssue): CheckFailure {
  const path = formatPath([field, ...issue.path]);
  return failure(path, describeIssue(issue));
}

export function formatPath(parts: readonly PropertyKey[]): string {
  return parts
    .map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join("");
}

function describeIssue(issue: z.core.$ZodIssue): string {
  // A map key that breaks its rule: zod files the key's own issues under a generic "invalid key".
  if (issue.code === "invalid_key") return issue.issues.map((i) => i.message).join("; ");
  if (issue.code === "invalid_type" && issue.input === undefined) return "is required";
  if (issue.code === "unrecognized_keys") return `unknown propert${issue.keys.length > 1 ? "ies" : "y"} ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
  return issue.message;
}

/**
 * Adds the provider's own inputs. The key and every auto-name are minted once, at the first create,
 * and then kept from the stored state: a stack, project or resource rename (`aliases`) changes the
 * resource's URN but must not rename (so replace) what it made. `__generation` counts replacements:
 * it grows when a replace-input changes, and only then is a new auto-name minted, so it never collides
 * with the resource being replaced, and stays the same when an interrupted `up` is run again.
 */
function withInternals(spec: ResourceSpec, olds: Obj, news: Obj, out: Obj): Obj {
  const stored = typeof olds.__resource === "string" && olds.__resource !== "";
  const resourceKey = stored ? (olds.__resource as string) : typeof news.__resource === "string" ? news.__resource : "";
  const oldAuto = new Set(Array.isArray(olds.__auto) ? (olds.__auto as string[]) : []);
  const oldGen = typeof olds.__generation === "number" ? olds.__generation : undefined;
  const replaced = oldGen !== undefined && spec.replaceOnChanges.some((path) => {
    const top = path.split(".")[0] ?? path;
    if (oldAuto.has(top) && out[top] === undefined) return false; // still auto-named: no user change
    return !sameValue(getPath(olds, path), getPath(out, path));
  });
  const generation = oldGen === undefined ? 0 : replaced ? oldGen + 1 : oldGen;
  const auto = spec.autoName?.(resourceKey, generation) ?? {};
  const filled = Object.keys(auto).filter((k) => out[k] === undefined);
  // A new resource's key is unknown at the preview of its stack's first `up` (./resource-key.ts), and so is every name from it.
  const minted = (k: string) => (resourceKey === UNKNOWN ? UNKNOWN : auto[k]);
  for (const k of filled) out[k] = !replaced && oldAuto.has(k) && olds[k] !== undefined ? olds[k] : minted(k);
  const secrets = Array.isArray(news.__secrets) ? { __secrets: news.__secrets } : {};
  const nonce = typeof olds.__nonce === "string" && olds.__nonce !== "" ? olds.__nonce : mintNonce();
  noteChecked(news.__resource, olds.__nonce);
  return { ...out, __resource: resourceKey, __generation: generation, __nonce: nonce, ...(filled.length ? { __auto: filled } : {}), ...secrets };
}
