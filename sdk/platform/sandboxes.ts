/**
 * Sandboxes area of the platform API. Every call authenticates with the API key (`X-API-Key`,
 * env `E2B_API_KEY`). Timeouts are seconds, as on the wire.
 *
 * | method     | verb and path                       | success |
 * |------------|-------------------------------------|---------|
 * | create     | POST /v2/sandboxes (Idempotency-Key) | 201    |
 * | fork       | POST /sandboxes/{id}/fork           | 201     |
 * | get        | GET /sandboxes/{id}                 | 200     |
 * | list       | GET /v2/sandboxes (X-Next-Token)    | 200     |
 * | kill       | DELETE /sandboxes/{id}              | 204     |
 * | setTimeout | POST /sandboxes/{id}/timeout        | 204     |
 * | pause      | POST /sandboxes/{id}/pause          | 204     |
 * | connect    | POST /sandboxes/{id}/connect        | 200/201 |
 * | metrics    | GET /sandboxes/metrics?sandbox_ids= | 200     |
 * | metricsOf  | GET /sandboxes/{id}/metrics         | 200     |
 * | logs       | GET /sandboxes/{id}/logs            | 200     |
 */
import { z } from "zod";
import { codeForStatus, isSandboxError, SandboxError } from "../errors";
import { reasonFor } from "../error-reasons";
import { header, type CallOptions, type HttpClient } from "../transport/http";
import {
  ForkResult,
  ListedSandbox,
  Sandbox,
  SandboxDetail,
  SandboxLogs,
  SandboxMetric,
  SandboxMetrics,
  type NetworkUpdate,
  type NewSandbox,
  type PauseRequest,
  type SandboxState,
} from "../schemas/sandboxes";

/** Filters and paging of {@link Sandboxes.list}. */
export interface ListSandboxesQuery {
  /** Only sandboxes whose metadata holds every one of these pairs. */
  metadata?: Record<string, string>;
  /** Default: both states. */
  state?: SandboxState[];
  /** Page size, 1–100; service default 100. */
  limit?: number;
  /** Token from a previous page. */
  nextToken?: string;
}

/** One page of {@link Sandboxes.list}; `nextToken` is absent on the last page. */
export interface SandboxPage {
  sandboxes: ListedSandbox[];
  nextToken?: string;
}

/** What the service accepts as an `Idempotency-Key` (e2b 2.63 on PyPI, `retry.py`). */
const IDEMPOTENCY_KEY = /^[a-z0-9-]{1,255}$/;

/** The service accepts at most this many IDs in one metrics call. */
const METRICS_BATCH = 100;

const ListedSandboxes = z.array(ListedSandbox);
const ForkResults = z.array(ForkResult).length(1, "one entry per fork asked (count 1)");
const MetricSeries = z.array(SandboxMetric);

export class Sandboxes {
  constructor(private readonly http: HttpClient) {}

  /**
   * Creates a sandbox (POST /v2/sandboxes: the deprecated POST /sandboxes is not used). With an
   * `idempotencyKey` (1 to 255 of `[a-z0-9-]`), the service answers every repeat of the same request
   * with the first one's sandbox, so the create is repeated after a lost answer or a timeout; without
   * one it is not (a repeat could create a second sandbox). Every sandbox the v2 route makes is secured:
   * a `secure` in `body` is not sent.
   */
  create(body: NewSandbox, call?: CallOptions, opts: { idempotencyKey?: string } = {}): Promise<Sandbox> {
    const { secure: _secured, ...v2 } = body;
    const key = opts.idempotencyKey;
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
      throw new SandboxError({ code: "invalid_argument", message: `POST /v2/sandboxes: the idempotency key must be 1 to 255 of a-z, 0-9 and "-", got ${JSON.stringify(key)}.` });
    }
    const op = { method: "POST", route: "/v2/sandboxes", body: v2, auth: "apiKey", ...(key !== undefined ? { idempotencyKey: key } : {}) } as const;
    return this.http.call(op, Sandbox, call);
  }

  /**
   * Forks a running sandbox into one new sandbox, alive `timeout` seconds (service default 15). Not
   * repeated after a dropped connection: it could make a second fork. The service answers 201 with the
   * fork's own outcome: a fork that did not start is thrown as its status would be.
   * @throws `not_found` for no such sandbox; `conflict` for a paused one.
   */
  async fork(id: string, opts: { timeout?: number } = {}, call?: CallOptions): Promise<Sandbox> {
    const op = { method: "POST", route: "/sandboxes/{id}/fork", params: { id }, body: { timeout: opts.timeout, count: 1 }, auth: "apiKey" } as const;
    const [result] = await this.http.call(op, ForkResults, call);
    if (result?.sandbox) return result.sandbox;
    const status = result?.error?.code ?? 500;
    // The request carried no secret (a timeout and a count) for the service's message to echo.
    const detail = result?.error?.message ?? "the fork reported neither a sandbox nor an error";
    const reason = reasonFor(status, result?.error?.message);
    const message = `POST /sandboxes/{id}/fork: the fork did not start (${status} ${codeForStatus(status)}): ${detail}`;
    throw new SandboxError({ code: codeForStatus(status), ...(reason ? { reason } : {}), status, service: { code: status, message: detail }, message });
  }

  /** A running or paused sandbox. @throws `not_found` when it does not exist (or is being killed). */
  get(id: string, call?: CallOptions): Promise<SandboxDetail> {
    return this.http.call({ method: "GET", route: "/sandboxes/{id}", params: { id }, auth: "apiKey" }, SandboxDetail, call);
  }

  /** One page of sandboxes, newest first. */
  async list(q: ListSandboxesQuery = {}, call?: CallOptions): Promise<SandboxPage> {
    const query = {
      metadata: q.metadata && Object.keys(q.metadata).length > 0 ? encodeMetadata(q.metadata) : undefined,
      state: q.state && q.state.length > 0 ? q.state.join(",") : undefined,
      limit: q.limit,
      nextToken: q.nextToken,
    };
    const op = { method: "GET", route: "/v2/sandboxes", query, auth: "apiKey" } as const;
    const res = await this.http.exchange(op, call);
    const sandboxes = this.http.parse(op, ListedSandboxes, res);
    const nextToken = header(res, "x-next-token");
    return nextToken ? { sandboxes, nextToken } : { sandboxes };
  }

  /** Every page of {@link list}, following `nextToken` (starting from `q.nextToken` if given). */
  async listAll(q: ListSandboxesQuery = {}, call?: CallOptions): Promise<ListedSandbox[]> {
    const all: ListedSandbox[] = [];
    const seen = new Set<string>();
    let token = q.nextToken;
    for (;;) {
      const page = await this.list({ ...q, nextToken: token }, call);
      all.push(...page.sandboxes);
      // A token seen before would loop forever; a service that repeats one has no more pages.
      if (!page.nextToken || seen.has(page.nextToken)) return all;
      seen.add(page.nextToken);
      token = page.nextToken;
    }
  }

  /** Kills a running sandbox and/or deletes its pause snapshot. @throws `not_found` if neither exists. */
  kill(id: string, call?: CallOptions): Promise<void> {
    return this.http.callVoid({ method: "DELETE", route: "/sandboxes/{id}", params: { id }, auth: "apiKey" }, call);
  }

  /**
   * Sets the sandbox to expire `seconds` from now (≤ 0: now); may shorten its life.
   * @throws `conflict` while it is being paused or killed.
   */
  setTimeout(id: string, seconds: number, call?: CallOptions): Promise<void> {
    const op = { method: "POST", route: "/sandboxes/{id}/timeout", params: { id }, body: { timeout: seconds }, auth: "apiKey", idempotent: true } as const;
    return this.http.callVoid(op, call);
  }

  /**
   * Replaces the egress rules of a live sandbox (allowOut, denyOut, allow_internet_access); what is
   * left out is cleared. Idempotent: the same body leaves the same rules.
   * @throws `invalid_argument` for rules the service refuses; `conflict` while it is being paused or killed.
   */
  setNetwork(id: string, body: NetworkUpdate, call?: CallOptions): Promise<void> {
    const op = { method: "PUT", route: "/sandboxes/{id}/network", params: { id }, body, auth: "apiKey", idempotent: true } as const;
    return this.http.callVoid(op, call);
  }

  /**
   * Pauses a running sandbox: a memory snapshot by default, the files only with `memory: false`
   * (its resume boots cold). A body is sent only when `body` names a field. A sandbox that is already
   * paused counts as success: the service's 409 "already paused" is what a repeated pause gets.
   * @throws `unavailable` (503) when it cannot be paused now: a files-only pause, or one with
   *   `requireHealthyGuest`, while its guest agent does not answer; the sandbox keeps running.
   */
  async pause(id: string, body: PauseRequest = {}, call?: CallOptions): Promise<void> {
    const sent = Object.values(body).some((v) => v !== undefined) ? { body } : {};
    try {
      await this.http.callVoid({ method: "POST", route: "/sandboxes/{id}/pause", params: { id }, ...sent, auth: "apiKey", idempotent: true }, call);
    } catch (err) {
      if (isSandboxError(err) && err.reason === "already_paused") return;
      throw err;
    }
  }

  /**
   * Resumes a paused sandbox or extends a running one's life to at least `timeout` seconds from
   * now. Declared idempotent: repeating it leaves the same state.
   */
  connect(id: string, opts: { timeout: number }, call?: CallOptions): Promise<Sandbox> {
    const op = { method: "POST", route: "/sandboxes/{id}/connect", params: { id }, body: { timeout: opts.timeout }, auth: "apiKey", idempotent: true } as const;
    return this.http.call(op, Sandbox, call);
  }

  /**
   * Latest metric of each sandbox, keyed by sandbox ID. More than 100 IDs are sent in batches;
   * an empty list sends nothing and returns `{}`.
   */
  async metrics(ids: string[], call?: CallOptions): Promise<Record<string, SandboxMetric>> {
    const unique = [...new Set(ids)];
    const out: Record<string, SandboxMetric> = {};
    for (let i = 0; i < unique.length; i += METRICS_BATCH) {
      const query = { sandbox_ids: unique.slice(i, i + METRICS_BATCH).join(",") };
      const res = await this.http.call({ method: "GET", route: "/sandboxes/metrics", query, auth: "apiKey" }, SandboxMetrics, call);
      Object.assign(out, res.sandboxes);
    }
    return out;
  }

  /**
   * The metrics of one sandbox over a time range: `start` and `end` are Unix seconds (service default:
   * from its start to now). A paused sandbox has none. @throws `invalid_argument` for an inverted range.
   */
  metricsOf(id: string, q: { start?: number; end?: number } = {}, call?: CallOptions): Promise<SandboxMetric[]> {
    const op = { method: "GET", route: "/sandboxes/{id}/metrics", params: { id }, query: { start: q.start, end: q.end }, auth: "apiKey" } as const;
    return this.http.call(op, MetricSeries, call);
  }

  /** Logs of a sandbox. `start`: epoch milliseconds; `limit`: service default 1000. */
  logs(id: string, q: { start?: number; limit?: number } = {}, call?: CallOptions): Promise<SandboxLogs> {
    const op = { method: "GET", route: "/sandboxes/{id}/logs", params: { id }, query: { start: q.start, limit: q.limit }, auth: "apiKey" } as const;
    return this.http.call(op, SandboxLogs, call);
  }
}

/**
 * The `metadata` filter: `k=v&k2=v2` with each key and value URL-encoded, as the official SDK
 * sends it (the query string encodes it once more).
 */
export function encodeMetadata(metadata: Record<string, string>): string {
  return Object.entries(metadata)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join("&");
}
