/**
 * Templates area of the platform API, and waiting for a build.
 *
 * | method      | verb and path                                  | auth              | success |
 * |-------------|------------------------------------------------|-------------------|---------|
 * | create      | POST /templates                                | Bearer            | 202     |
 * | rebuild     | POST /templates/{id}                           | Bearer            | 202     |
 * | get         | GET /templates/{id}                            | API key           | 200     |
 * | buildsPage  | GET /templates/{id} (X-Next-Token)             | API key           | 200     |
 * | list        | GET /templates                                 | API key           | 200     |
 * | listDefault | GET /default-templates                         | API key           | 200     |
 * | byAlias     | GET /templates/aliases/{alias}                 | API key           | 200     |
 * | tagGroups   | GET /templates/{id}/tags/groups (tagsCursor)   | API key           | 200     |
 * | buildStatus | GET /templates/{id}/builds/{buildID}/status    | API key           | 200     |
 * | setPublic   | PATCH /v2/templates/{id}                       | API key, else Bearer | 200  |
 * | delete      | DELETE /templates/{id}                         | API key           | 204     |
 *
 * Bearer is the access token (`E2B_ACCESS_TOKEN`); the API key is `E2B_API_KEY`.
 */
import { z } from "zod";
import { BUILD_RUNNING_PAUSE_MS, BuildPace } from "../template-build/build-wait";
import { isSandboxError, redact, SandboxError } from "../errors";
import { header, type CallOptions, type HttpClient } from "../transport/http";
import {
  Template,
  TemplateBuildAccepted,
  TemplateAlias,
  TemplateBuildInfo,
  TemplateTagGroups,
  TemplateUpdateResponse,
  TemplateWithBuilds,
  type BuildLogEntry,
  type TemplateBuildRequest,
} from "../schemas/templates";
import { waitFor } from "../transport/wait";

/** Options of {@link Templates.waitForBuild}. */
export interface WaitForBuildOptions {
  /** Overall deadline, in milliseconds. Default 1_200_000 (20 minutes). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called once per build log entry, in order, as they arrive. */
  onLog?: (entry: BuildLogEntry) => void;
  /**
   * Pause between status polls while the build's steps run, in milliseconds. Default 1000. Once its
   * log shows the last step or the finalize phase polls come every 250 ms, and every 100 ms after
   * the builder's last line, never slower than this.
   */
  intervalMs?: number;
}

export const DEFAULT_BUILD_TIMEOUT_MS = 20 * 60_000;
/** How many of the last log lines a build failure message quotes. */
const FAILURE_LOG_LINES = 10;
/** Build log entries kept for the result; every entry still reaches `onLog`. */
const KEPT_LOG_ENTRIES = 100;

/**
 * Code `build_failed`: the build ended in status `error`. `build` is the final status, with every
 * log entry received while waiting in `logEntries`.
 */
export class BuildFailedError extends SandboxError {
  readonly build: TemplateBuildInfo;
  constructor(message: string, build: TemplateBuildInfo) {
    super({ code: "build_failed", message });
    this.build = build;
  }
}

const Templates_ = z.array(Template);

export class Templates {
  constructor(private readonly http: HttpClient) {}

  /** Registers a template and starts its first build (v1). Never repeated after a dropped connection. */
  create(body: TemplateBuildRequest, call?: CallOptions): Promise<TemplateBuildAccepted> {
    return this.http.call({ method: "POST", route: "/templates", body, auth: "bearer" }, TemplateBuildAccepted, call);
  }

  /** Starts a new build of an existing template (v1); `buildID` of the answer is the new build. */
  rebuild(id: string, body: TemplateBuildRequest, call?: CallOptions): Promise<TemplateBuildAccepted> {
    const op = { method: "POST", route: "/templates/{id}", params: { id }, body, auth: "bearer" } as const;
    return this.http.call(op, TemplateBuildAccepted, call);
  }

  /** A template and its builds, by template ID (not alias). */
  get(id: string, call?: CallOptions): Promise<TemplateWithBuilds> {
    return this.http.call({ method: "GET", route: "/templates/{id}", params: { id }, auth: "apiKey" }, TemplateWithBuilds, call);
  }

  /**
   * One page of a template's builds, newest first (the template's fields come with each page);
   * `nextToken` is absent on the last page. `limit`: 1–100, service default 100 (docs/service.md; infra handlers/template_get.go).
   */
  async buildsPage(id: string, q: { limit?: number; nextToken?: string } = {}, call?: CallOptions): Promise<{ template: TemplateWithBuilds; nextToken?: string }> {
    const op = { method: "GET", route: "/templates/{id}", params: { id }, query: { limit: q.limit, nextToken: q.nextToken }, auth: "apiKey" } as const;
    const res = await this.http.exchange(op, call);
    const template = this.http.parse(op, TemplateWithBuilds, res);
    const nextToken = header(res, "x-next-token");
    return nextToken ? { template, nextToken } : { template };
  }

  /** The team's templates. */
  list(call?: CallOptions): Promise<Template[]> {
    return this.http.call({ method: "GET", route: "/templates", auth: "apiKey" }, Templates_, call);
  }

  /** The service's default templates, which every team may start sandboxes from (e2b 2.63 on PyPI: get_default_templates.py). */
  listDefault(call?: CallOptions): Promise<Template[]> {
    return this.http.call({ method: "GET", route: "/default-templates", auth: "apiKey" }, Templates_, call);
  }

  /**
   * The template an alias names and whether it is public. @throws `not_found` for an alias no template has;
   * `permission_denied` when another team's template has it (docs/service.md#templates).
   */
  byAlias(alias: string, call?: CallOptions): Promise<TemplateAlias> {
    return this.http.call({ method: "GET", route: "/templates/aliases/{alias}", params: { alias }, auth: "apiKey" }, TemplateAlias, call);
  }

  /**
   * One page of a template's tags, each with its ready assignments to builds, latest first (service
   * defaults: 25 tags, 6 assignments each); `nextCursor` is the next page's `tagsCursor`, null on the last.
   */
  tagGroups(id: string, q: { tagsCursor?: string; tagsLimit?: number; assignmentLimit?: number; search?: string } = {}, call?: CallOptions): Promise<TemplateTagGroups> {
    const op = { method: "GET", route: "/templates/{id}/tags/groups", params: { id }, query: { ...q }, auth: "apiKey" } as const;
    return this.http.call(op, TemplateTagGroups, call);
  }

  /**
   * Status of one build and at most `limit` (service default and max 100) of its log entries from
   * `logsOffset` (default 0). An unknown build is a 400 `invalid_argument` on the real service.
   */
  buildStatus(id: string, buildID: string, q: { logsOffset?: number; limit?: number } = {}, call?: CallOptions): Promise<TemplateBuildInfo> {
    const op = {
      method: "GET",
      route: "/templates/{id}/builds/{buildID}/status",
      params: { id, buildID },
      query: { logsOffset: q.logsOffset, limit: q.limit },
      auth: "apiKey",
    } as const;
    return this.http.call(op, TemplateBuildInfo, call);
  }

  /** Makes a template public or team-only; returns its names (`namespace/alias`). ID or alias. */
  async setPublic(id: string, isPublic: boolean, call?: CallOptions): Promise<{ names: string[] }> {
    const op = { method: "PATCH", route: "/v2/templates/{id}", params: { id }, body: { public: isPublic }, auth: "apiKeyOrBearer", idempotent: true } as const;
    const res = await this.http.call(op, TemplateUpdateResponse, call);
    return { names: res.names };
  }

  /** Deletes a template (ID or alias). @throws `invalid_argument` while sandboxes still use it. */
  delete(id: string, call?: CallOptions): Promise<void> {
    return this.http.callVoid({ method: "DELETE", route: "/templates/{id}", params: { id }, auth: "apiKey" }, call);
  }

  /**
   * Polls a build until it ends, at the pace its own log sets (see build-wait.ts): every
   * `intervalMs` while its steps run, faster from the last step on, fastest between the builder's
   * last line and `ready`. Log entries are fetched page by page (`logsOffset` advances by the entries
   * received) and handed to `onLog` in order; once the status is `ready` or `error`, the remaining
   * pages are fetched back to back until one comes back empty, so no line is lost. A 429 (after the
   * HTTP layer's own repeats) does not end the wait: it slows every later poll down, and the next
   * one waits at least the Retry-After.
   *
   * @returns the final status, whose `logEntries` holds the last 100 entries received while waiting
   *   (all of them reached `onLog`; memory stays bounded however long the build log is).
   * @throws BuildFailedError (code `build_failed`) on `error`, quoting the reason, its step and the
   *   last log lines; SandboxError `timeout` after `timeoutMs`; `aborted` on the signal.
   */
  async waitForBuild(id: string, buildID: string, opts: WaitForBuildOptions = {}): Promise<TemplateBuildInfo> {
    let received = 0;
    const recent: BuildLogEntry[] = [];
    const lines: string[] = [];
    const pace = new BuildPace(opts.intervalMs ?? BUILD_RUNNING_PAUSE_MS);
    let lastRetryAfter: number | undefined;
    const call = (signal: AbortSignal): CallOptions => ({
      signal,
      onRetry: (outcome) => {
        if (outcome.kind !== "status" || outcome.status !== 429) return;
        lastRetryAfter = outcome.retryAfterMs;
        pace.throttledAndWaited();
      },
    });
    const page = async (signal: AbortSignal) => {
      const info = await this.buildStatus(id, buildID, { logsOffset: received }, call(signal));
      received += info.logEntries.length;
      pace.observe(info.logEntries);
      for (const entry of info.logEntries) opts.onLog?.(entry);
      keepLast(recent, info.logEntries, KEPT_LOG_ENTRIES);
      keepLast(lines, info.logs, KEPT_LOG_ENTRIES);
      return info;
    };
    // Once the status is final no new entries can come: the rest is fetched page after page with no
    // pause, so a finished build costs no extra interval (as in the official SDK; see bench/RESULTS.md, 3).
    let last: TemplateBuildInfo | undefined;
    const poll = async (signal: AbortSignal) => {
      try {
        let info = await page(signal);
        if (isFinal(info.status)) while (info.logEntries.length > 0) info = await page(signal);
        return (last = info);
      } catch (err) {
        // Rate limited beyond the HTTP layer's repeats: the build goes on regardless, so the wait does too.
        if (!isSandboxError(err) || err.code !== "rate_limited" || signal.aborted) throw err;
        pace.throttled(lastRetryAfter);
        return last;
      }
    };
    const timeoutMs = opts.timeoutMs ?? DEFAULT_BUILD_TIMEOUT_MS;
    const done = await waitFor(poll, (info) => info !== undefined && isFinal(info.status), {
      timeoutMs,
      pauseMs: () => pace.nextPauseMs(),
      what: `template ${id} build ${buildID} to finish`,
      describe: (info) => (info ? `status ${info.status}, ${received} log entries` : "rate limited (429) so far"),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const build: TemplateBuildInfo = { ...done!, logEntries: recent, logs: lines };
    if (build.status === "error") throw new BuildFailedError(this.failureMessage(build), build);
    return build;
  }

  private failureMessage(build: TemplateBuildInfo): string {
    const reason = build.reason;
    const step = reason?.step ? ` at step ${reason.step}` : "";
    const why = reason?.message || "the service gave no reason";
    const quoted = reason?.logEntries?.length ? reason.logEntries : build.logEntries;
    const tail = quoted.slice(-FAILURE_LOG_LINES).map((e) => `  ${e.timestamp} [${e.level}] ${e.message}`);
    const text = `Template ${build.templateID} build ${build.buildID} failed${step}: ${why}` +
      (tail.length > 0 ? `\nLast log lines:\n${tail.join("\n")}` : "");
    return redact(text, [this.http.options.apiKey, this.http.options.accessToken]);
  }
}

/** Appends `items` to `into`, keeping only its last `max` elements. */
function keepLast<T>(into: T[], items: readonly T[], max: number): void {
  into.push(...items);
  if (into.length > max) into.splice(0, into.length - max);
}

function isFinal(status: TemplateBuildInfo["status"]): boolean {
  return status === "ready" || status === "error";
}
