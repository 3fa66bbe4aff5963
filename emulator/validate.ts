/**
 * Request validation with the real server's wording. The service checks requests against its
 * OpenAPI schema before any handler runs, answering 400 with messages such as
 * `validation error: request body has an error: Error at "/timeout": …`; these helpers produce the same shape.
 */
import { z } from "zod";
import { ApiError, ValidationError } from "./http";

/** Parses a JSON body with a zod schema; the first issue becomes a 400. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  if (body === undefined) throw new ValidationError("request body has an error: value is required but missing");
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw new ValidationError(`request body has an error: ${describe(result.error.issues[0], body)}`);
}

function describe(issue: z.core.$ZodIssue | undefined, body: unknown): string {
  if (!issue) return "invalid value";
  const path = issue.path.map(String);
  const where = `Error at "/${path.join("/")}"`;
  if (path.length > 0 && valueAt(body, path) === undefined) return `${where}: property "${path.at(-1)}" is missing`;
  return `${where}: ${issue.message}`;
}

function valueAt(root: unknown, path: string[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A query parameter the service's OpenAPI validator refuses. */
export function queryError(name: string, reason: string): ApiError {
  return new ValidationError(`parameter "${name}" in query has an error: ${reason}`);
}

/** An optional integer query parameter within [min, max]; `fallback` when absent. */
export function queryInt(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = query.get(name);
  if (raw === null || raw === "") return fallback;
  if (!/^-?\d+$/.test(raw)) throw queryError(name, "value must be an integer");
  const n = Number(raw);
  if (n < min) throw queryError(name, `number must be at least ${min}`);
  if (n > max) throw queryError(name, `number must be at most ${max}`);
  return n;
}

/** An optional enum query parameter; `fallback` when absent. */
export function queryEnum<T extends string>(query: URLSearchParams, name: string, allowed: readonly T[], fallback: T): T {
  const raw = query.get(name);
  if (raw === null || raw === "") return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw queryError(name, notOneOf(allowed));
  return raw as T;
}

/** A comma-separated list of enum values, e.g. `state=running,paused`; `fallback` when absent. */
export function queryEnumList<T extends string>(query: URLSearchParams, name: string, allowed: readonly T[], fallback: T[]): T[] {
  const raw = query.get(name);
  if (raw === null || raw === "") return fallback;
  const values = raw.split(",").map((v) => v.trim());
  const bad = values.find((v) => !(allowed as readonly string[]).includes(v));
  if (bad !== undefined) throw queryError(name, notOneOf(allowed));
  return values as T[];
}

/** A repeated enum query parameter (`types=a&types=b`), each value checked; none given is an empty list. */
export function queryEnumAll<T extends string>(query: URLSearchParams, name: string, allowed: readonly T[]): T[] {
  const values = query.getAll(name).filter((v) => v !== "");
  if (values.some((v) => !(allowed as readonly string[]).includes(v))) throw queryError(name, notOneOf(allowed));
  return values as T[];
}

/** An optional boolean query parameter (`true` or `false`); `fallback` when absent. */
export function queryBool(query: URLSearchParams, name: string, fallback: boolean): boolean {
  const raw = query.get(name);
  if (raw === null || raw === "") return fallback;
  if (raw !== "true" && raw !== "false") throw queryError(name, "value must be a boolean");
  return raw === "true";
}

/** A required query parameter. */
export function queryRequired(query: URLSearchParams, name: string): string {
  const raw = query.get(name);
  if (raw === null || raw === "") throw queryError(name, "value is required but missing");
  return raw;
}

export function notOneOf(allowed: readonly string[]): string {
  return `value is not one of the allowed values [${allowed.map((a) => JSON.stringify(a)).join(",")}]`;
}

/**
 * The team's plan caps, the `tiers` table's defaults (infra: packages/db/migrations/
 * 20250507134356_add_max_specs_to_tier.sql, 20250513111201_tier_fix_max_memory.sql).
 */
export const PLAN_MAX_VCPU = 8;
export const PLAN_MAX_RAM_MB = 8192;
const RAISE = "(if you need to increase this limit, please contact support)";

/** Template resource limits (infra: team/limits.go); each violation is a 400 with its own message. */
export function checkResources(cpuCount: number | undefined, memoryMB: number | undefined): void {
  if (cpuCount !== undefined) {
    if (cpuCount < 1) throw new ApiError(400, "CPU count must be at least 1");
    if (cpuCount > 32) throw new ApiError(400, "CPU count must be at most 32");
    if (cpuCount !== 1 && cpuCount % 2 !== 0) throw new ApiError(400, "CPU count must be 1 or an even number");
    if (cpuCount > PLAN_MAX_VCPU) throw new ApiError(400, `CPU count can't be higher than ${PLAN_MAX_VCPU} ${RAISE}`);
  }
  if (memoryMB !== undefined) {
    if (memoryMB < 128) throw new ApiError(400, "Memory must be at least 128 MiB");
    if (memoryMB % 2 !== 0) throw new ApiError(400, "Memory must be divisible by 2");
    if (memoryMB > PLAN_MAX_RAM_MB) throw new ApiError(400, `Memory can't be higher than ${PLAN_MAX_RAM_MB} MiB ${RAISE}`);
  }
}
