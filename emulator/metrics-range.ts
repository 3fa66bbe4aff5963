/**
 * The time range and step of the service's metrics queries (docs/service.md#metrics): `start` and
 * `end` are Unix seconds; a range that ends before it starts, or past ClickHouse's last date, is
 * refused; the step grows with the range so that a series stays under 1000 points
 * (infra: packages/clickhouse/pkg/utils/validate.go, step.go).
 */
import { queryInt } from "./validate";

/** ClickHouse's DateTime64 upper bound, 2299-12-31T23:59:59.999999999Z (infra: packages/clickhouse/pkg/dates.go). */
const MAX_DATE64_MS = Date.UTC(2299, 11, 31, 23, 59, 59, 999);
/** Largest Unix second a query may name (int64 on the wire; JS keeps it exact up to 2^53). */
const MAX_SECONDS = Math.floor(Number.MAX_SAFE_INTEGER / 1000);

/** A metrics query's range, in milliseconds. */
export interface MetricsRange {
  startMs: number;
  endMs: number;
}

/** `start`/`end` of the query (seconds), each defaulting to the given millisecond bound. */
export function rangeOf(query: URLSearchParams, defaults: MetricsRange): MetricsRange {
  const pick = (name: string, fallback: number) => (query.has(name) ? queryInt(query, name, 0, 0, MAX_SECONDS) * 1000 : fallback);
  return { startMs: pick("start", defaults.startMs), endMs: pick("end", defaults.endMs) };
}

/** The service's range check; its message, or undefined when the range is usable. */
export function rangeProblem({ startMs, endMs }: MetricsRange): string | undefined {
  const max = new Date(MAX_DATE64_MS).toISOString();
  if (startMs > MAX_DATE64_MS) return `start time cannot be after ${max}`;
  if (endMs > MAX_DATE64_MS) return `end time cannot be after ${max}`;
  if (startMs > endMs) return "start time cannot be after end time";
  return undefined;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The step between points for a range, in milliseconds (infra: clickhouse/pkg/utils/step.go, CalculateStep). */
export function stepOf({ startMs, endMs }: MetricsRange): number {
  const span = endMs - startMs;
  if (span < HOUR) return 5 * SECOND;
  if (span < 6 * HOUR) return 30 * SECOND;
  if (span < 12 * HOUR) return MINUTE;
  if (span < 24 * HOUR) return 2 * MINUTE;
  if (span < 7 * 24 * HOUR) return 5 * MINUTE;
  return 15 * MINUTE;
}

/**
 * The times of a series of readings taken every step of `range`, from where `range` and [from, to]
 * start to overlap to where they stop. Empty when they do not overlap.
 */
export function pointsIn(range: MetricsRange, from: number, to: number): number[] {
  const step = stepOf(range);
  const lo = Math.max(range.startMs, from);
  const hi = Math.min(range.endMs, to);
  const out: number[] = [];
  if (lo > hi) return out;
  for (let t = lo; t <= hi; t += step) out.push(t);
  return out;
}
