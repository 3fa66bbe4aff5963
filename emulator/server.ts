/**
 * The one request listener of the emulator. A request for the in-sandbox API (as the envd handler
 * recognises it) goes there; anything else goes to the platform router. Faults apply to platform
 * routes only, never to /health or /_emulator/. Every request is logged (the call log and the `log`
 * line sink), refused and dropped ones included.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { CallLog, CallRecord } from "./calls";
import type { EnvdHandler } from "./envd";
import type { ExchangeObserver } from "./exchanges";
import type { FaultDecision, Faults } from "./faults";
import { ApiError, errorReply, sendReply, type Reply } from "./http";
import { crossSiteRefusal } from "./page/origin";
import type { Router, SeenRequest } from "./router";

/** What the request listener routes to and records into. */
export interface ListenerDeps {
  envd: EnvdHandler;
  router: Router;
  faults: Faults;
  calls: CallLog;
  /** Receives one line per request: `METHOD path status ms` (never a credential). */
  log?: ((line: string) => void) | undefined;
  /** Sees each platform answer the API itself gave (not the refusals of faults, nor admin calls). */
  onExchange?: ExchangeObserver | undefined;
}

type Outcome = Pick<CallRecord, "status" | "area"> & { fault?: CallRecord["fault"] };

/** Answers of the refusing faults, as the real rate limiter and load balancer send them. */
const FAULT_REPLIES: Record<"rate429" | "rate503", Reply> = {
  rate429: { status: 429, body: { code: 429, message: "Rate limit exceeded" }, headers: { "Retry-After": "1" } },
  rate503: { status: 503, body: { code: 503, message: "Service Unavailable" } },
};

/** The `request` listener of the emulator's one http server. */
export function createListener(deps: ListenerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const started = performance.now();
    const time = new Date().toISOString();
    const done = (outcome: Outcome) => record(deps, req, time, started, outcome);
    if (deps.envd.matches(req)) {
      res.on("close", () => done({ area: "sandbox", status: res.headersSent ? res.statusCode : null }));
      deps.envd.handle(req, res);
      return;
    }
    handlePlatform(deps, req, res).then(done, (err: unknown) => {
      deps.log?.(`emulator: internal error: ${(err as Error).stack ?? String(err)}`);
      res.destroy();
      done({ area: "platform", status: null });
    });
  };
}

async function handlePlatform(deps: ListenerDeps, req: IncomingMessage, res: ServerResponse): Promise<Outcome> {
  const url = new URL(req.url ?? "/", "http://emulator");
  const refused = crossSiteRefusal(req);
  if (refused) {
    sendReply(res, refused);
    return { area: "platform", status: refused.status };
  }
  if (url.pathname.startsWith("/_emulator/")) {
    const reply = await dispatch(deps, req, url);
    sendReply(res, reply);
    return { area: "platform", status: reply.status };
  }
  if (url.pathname === "/health") return answer(deps, req, res, url);
  const decision = deps.faults.decide();
  if (decision.latencyMs > 0) await sleep(decision.latencyMs);
  if (decision.before) return refuse(req, res, decision.before);
  if (decision.dropAfter) {
    const reply = await dispatch(deps, req, url);
    req.socket.destroy();
    return { area: "platform", status: reply.status, fault: "dropAfter" };
  }
  return answer(deps, req, res, url);
}

/** Dispatches and sends the answer; the exchange observer, when there is one, sees both sides. */
async function answer(deps: ListenerDeps, req: IncomingMessage, res: ServerResponse, url: URL): Promise<Outcome> {
  const seen: SeenRequest | undefined = deps.onExchange ? {} : undefined;
  const reply = await dispatch(deps, req, url, seen);
  sendReply(res, reply);
  if (deps.onExchange) deps.onExchange(exchangeOf(req, url, reply, seen ?? {}));
  return { area: "platform", status: reply.status };
}

function exchangeOf(req: IncomingMessage, url: URL, reply: Reply, seen: SeenRequest) {
  return {
    method: req.method ?? "GET",
    path: url.pathname,
    status: reply.status,
    ...(seen.requestRead ? { requestRead: true } : {}),
    ...("requestBody" in seen ? { requestBody: seen.requestBody } : {}),
    // Raw (file) bodies are not JSON to check; only their status is.
    ...(reply.body === undefined || Buffer.isBuffer(reply.body) ? {} : { responseBody: reply.body }),
    ...(req.headers["user-agent"] ? { userAgent: req.headers["user-agent"] } : {}),
  };
}

function refuse(req: IncomingMessage, res: ServerResponse, fault: NonNullable<FaultDecision["before"]>): Outcome {
  if (fault === "drop") {
    req.socket.destroy();
    return { area: "platform", status: null, fault };
  }
  const reply = FAULT_REPLIES[fault];
  sendReply(res, reply);
  return { area: "platform", status: reply.status, fault };
}

async function dispatch(deps: ListenerDeps, req: IncomingMessage, url: URL, seen?: SeenRequest): Promise<Reply> {
  try {
    return await deps.router.dispatch(req, url, seen);
  } catch (err) {
    if (err instanceof ApiError) return errorReply(err);
    deps.log?.(`emulator: ${req.method} ${url.pathname} failed: ${(err as Error).stack ?? String(err)}`);
    return errorReply(new ApiError(500, `Internal server error: ${(err as Error).message}`));
  }
}

function record(deps: ListenerDeps, req: IncomingMessage, time: string, started: number, outcome: Outcome): void {
  const ms = Math.round((performance.now() - started) * 10) / 10;
  const method = req.method ?? "GET";
  const path = req.url ?? "/";
  const status = outcome.status;
  // Admin calls stay out of the call log, so polling it does not change what it shows.
  if (!path.startsWith("/_emulator/")) {
    deps.calls.add({ time, method, path, area: outcome.area, status, ms, ...(outcome.fault ? { fault: outcome.fault } : {}) });
  }
  deps.log?.(`${method} ${path} ${status ?? "dropped"} ${ms}ms${outcome.fault ? ` fault=${outcome.fault}` : ""}`);
}
