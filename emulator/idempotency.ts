/**
 * The `Idempotency-Key` of POST /v2/sandboxes (docs/service.md#idempotent-creates): a client that lost
 * a create's answer sends the same request with the same key again and gets the first answer back,
 * never a second sandbox. The official Python SDK (e2b 2.63.0) sends the key and repeats a create
 * on its own when an answer carries `Should-Retry: true` (e2b/retry.py).
 */
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { ApiError, errorReply, type Reply } from "./http";
import type { Stores } from "./store";

/** The header's rule, as the SDK checks it before sending (e2b/retry.py, resolve_idempotency_key). */
const KEY_FORMAT = /^[a-z0-9-]{1,255}$/;

/** How long a key is kept after the create that first used it: the emulator's choice. */
export const KEY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** What one key holds: the request it was first used with and, once that create ended, its answer. */
interface Entry {
  /** A hash of the request body's canonical JSON. */
  fingerprint: string;
  firstAt: number;
  /** Undefined while the first create is still running. */
  reply?: Reply;
}

/** The key a request sends, checked; undefined when it sends none. A bad key is a 400. */
export function idempotencyKeyOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers["idempotency-key"];
  if (value === undefined) return undefined;
  // Node joins a repeated header with ", ", which the rule refuses as well.
  const key = Array.isArray(value) ? value.join(", ") : value;
  if (!KEY_FORMAT.test(key)) {
    throw new ApiError(400, `invalid Idempotency-Key header: it must be 1 to 255 characters, each a lowercase letter, a digit or a hyphen ([a-z0-9-]), got ${key.length} characters`);
  }
  return key;
}

/** The keys of one team; see `keysOf`. */
export class IdempotencyKeys {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly retentionMs = KEY_RETENTION_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Runs `create` for the first request with `key`; a later one with the same body gets that
   * create's answer again, one with another body a 422, one while the first still runs a 409.
   */
  async run(key: string, body: unknown, create: () => Promise<Reply>): Promise<Reply> {
    this.forgetExpired();
    const fingerprint = createHash("sha256").update(canonicalJson(body)).digest("hex");
    const seen = this.entries.get(key);
    if (seen) return answerAgain(key, seen, fingerprint);
    const entry: Entry = { fingerprint, firstAt: this.now() };
    this.entries.set(key, entry);
    try {
      entry.reply = await create();
      return entry.reply;
    } catch (err) {
      if (err instanceof ApiError && replayable(err.status)) entry.reply = errorReply(err);
      else this.entries.delete(key);
      throw err;
    }
  }

  /** Entries are in the order of their first use, so the expired ones are at the front. */
  private forgetExpired(): void {
    const oldest = this.now() - this.retentionMs;
    for (const [key, entry] of this.entries) {
      if (entry.firstAt > oldest) break;
      this.entries.delete(key);
    }
  }
}

/**
 * A refusal that the same request would get again is kept. A 429 (a limit that frees up later) and a
 * 5xx (the outcome unclear) are not: the SDK retries both, and a kept one would refuse the key for a day.
 */
function replayable(status: number): boolean {
  return status >= 400 && status < 500 && status !== 429;
}

function answerAgain(key: string, entry: Entry, fingerprint: string): Reply {
  // A different request is the caller's mistake whatever the first one's state, so it is checked first.
  if (entry.fingerprint !== fingerprint) {
    throw new ApiError(422, `Idempotency-Key '${key}' was already used with a different request body; use a new key for a new request`, {}, "idempotency_request_mismatch");
  }
  if (entry.reply === undefined) {
    // Should-Retry makes the SDK wait Retry-After seconds and send the request again (e2b/retry.py).
    throw new ApiError(409, `a request with Idempotency-Key '${key}' is still in progress`, { "Should-Retry": "true", "Retry-After": "1" }, "idempotency_in_progress");
  }
  return structuredClone(entry.reply);
}

/** JSON with every object's keys sorted, so that two bodies differing only in key order match. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * Keys belong to the team of the API key; the emulator has one team per Stores, so one set of keys
 * per Stores. Held here rather than in Stores so that only the create route knows of them.
 */
const byTeam = new WeakMap<Stores, IdempotencyKeys>();

export function keysOf(stores: Stores): IdempotencyKeys {
  let keys = byTeam.get(stores);
  if (!keys) byTeam.set(stores, (keys = new IdempotencyKeys()));
  return keys;
}
