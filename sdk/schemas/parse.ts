/**
 * Checks a decoded response body against its wire schema. A mismatch becomes one SandboxError
 * `invalid_response` that names the operation and the field path, so a changed service is found
 * at the boundary instead of as an `undefined` deep in the provider.
 */
import type { z } from "zod";
import { SandboxError } from "../errors";

type Issue = z.core.$ZodIssue;
type Key = PropertyKey;

/**
 * Parses `data` with `schema`.
 *
 * @param operation e.g. `GET /sandboxes/{id}`, the start of the message.
 * @throws SandboxError `invalid_response`, message like
 *   "GET /sandboxes/{id}: response field `endAt`: expected string, got number".
 */
export function parseWire<S extends z.ZodType>(schema: S, data: unknown, operation: string): z.output<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const issues = result.error.issues;
  const first = issues[0];
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? "s" : ""})` : "";
  const detail = first ? describeIssue(first, data) : "does not match";
  throw new SandboxError({
    code: "invalid_response",
    message: `${operation}: ${detail}${more}. The service answered with a shape this client does not understand.`,
    cause: result.error,
  });
}

function describeIssue(issue: Issue, data: unknown): string {
  const where = issue.path.length === 0 ? "response body" : `response field \`${formatPath(issue.path)}\``;
  const actual = valueAt(data, issue.path);
  switch (issue.code) {
    case "invalid_type":
      return `${where}: expected ${issue.expected}, got ${kindOf(actual)}`;
    case "invalid_value":
      return `${where}: expected one of ${issue.values.map((v) => JSON.stringify(v)).join("|")}, got ${preview(actual)}`;
    default:
      return `${where}: ${issue.message}`;
  }
}

/** `["a", 0, "b-c"]` → `a[0]["b-c"]`. */
export function formatPath(path: readonly Key[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

function valueAt(data: unknown, path: readonly Key[]): unknown {
  let cur: unknown = data;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<Key, unknown>)[key];
  }
  return cur;
}

function kindOf(v: unknown): string {
  if (v === undefined) return "nothing (the field is missing)";
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

function preview(v: unknown): string {
  const text = v === undefined ? "nothing" : JSON.stringify(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
