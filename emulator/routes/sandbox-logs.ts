/**
 * Sandbox logs: GET /sandboxes/{id}/logs (deprecated: `start` ms and `limit`, answering both raw
 * lines and entries) and GET /v2/sandboxes/{id}/logs (`cursor` ms, `limit` ≤ 1000, `direction`,
 * minimum `level`, case-sensitive `search`).
 */
import { json, type Reply } from "../http";
import type { SandboxLogEntry, SandboxRecord } from "../store/sandbox-records";
import { queryEnum, queryError, queryInt } from "../validate";

const LEVELS = ["debug", "info", "warn", "error"] as const;
/** Longest `search` of the v2 endpoint, in characters. */
const MAX_SEARCH = 256;

/** GET /sandboxes/{id}/logs: entries at or after `start` (ms), at most `limit` (default 1000). */
export function logsV1(s: SandboxRecord, query: URLSearchParams): Reply {
  const start = queryInt(query, "start", 0, 0, Number.MAX_SAFE_INTEGER);
  const limit = queryInt(query, "limit", 1000, 0, 2 ** 31 - 1);
  const entries = s.logs.filter((e) => Date.parse(e.timestamp) >= start).slice(0, limit);
  return json(200, {
    logs: entries.map((e) => ({ timestamp: e.timestamp, line: JSON.stringify({ level: e.level, msg: e.message, ...e.fields }) })),
    logEntries: entries,
  });
}

/** GET /v2/sandboxes/{id}/logs: forward from `cursor` (ms, default 0) or backward to it (default now). */
export function logsV2(s: SandboxRecord, query: URLSearchParams): Reply {
  const direction = queryEnum(query, "direction", ["forward", "backward"], "forward");
  const cursor = queryInt(query, "cursor", direction === "forward" ? 0 : Date.now(), 0, Number.MAX_SAFE_INTEGER);
  const limit = queryInt(query, "limit", 1000, 0, 1000);
  const floor = LEVELS.indexOf(queryEnum(query, "level", LEVELS, "debug"));
  const search = query.get("search") ?? "";
  if (search.length > MAX_SEARCH) throw queryError("search", `maximum string length is ${MAX_SEARCH}`);
  const inRange = (e: SandboxLogEntry) => (direction === "forward" ? Date.parse(e.timestamp) >= cursor : Date.parse(e.timestamp) <= cursor);
  const picked = s.logs.filter((e) => inRange(e) && LEVELS.indexOf(e.level) >= floor && e.message.includes(search));
  const ordered = direction === "forward" ? picked : [...picked].reverse();
  return json(200, { logs: ordered.slice(0, limit) });
}
