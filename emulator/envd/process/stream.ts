/**
 * The event stream of Start and Connect: `start{pid}`, then `data` chunks as they come, `keepalive`
 * when nothing was sent for `Keepalive-Ping-Interval` seconds (default 90), and `end`. When the
 * call's deadline (`Connect-Timeout-Ms`) passes, the stream ends with deadline_exceeded; when the
 * client goes away it just stops (the process keeps running).
 */
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ProcessEventSchema } from "../../../sdk/gen/process/process_pb";
import type { EndInfo } from "./exit";
import type { Subscription } from "./fanout";
import type { ProcessUpdate } from "./managed";

type EventInit = MessageInitShape<typeof ProcessEventSchema>;

/** envd's keepalive interval when the header is absent or not a positive integer, in seconds. */
const DEFAULT_KEEPALIVE_S = 90;

/** The keepalive interval a call asked for, in ms. */
export function keepaliveMs(ctx: HandlerContext): number {
  const raw = ctx.requestHeader.get("keepalive-ping-interval");
  const seconds = raw !== null && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : 0;
  return (seconds > 0 ? seconds : DEFAULT_KEEPALIVE_S) * 1000;
}

export function startEvent(pid: number): { event: EventInit } {
  return { event: { event: { case: "start", value: { pid } } } };
}

export function endEvent(end: EndInfo): { event: EventInit } {
  return { event: { event: { case: "end", value: end } } };
}

function toMessage(update: ProcessUpdate): { event: EventInit } {
  if (update.case === "end") return endEvent(update.end);
  return { event: { event: { case: "data", value: { output: { case: update.kind, value: update.data } } } } };
}

/** Why the wait for the next update stopped. */
type Wake = { kind: "update"; update: ProcessUpdate | undefined } | { kind: "keepalive" } | { kind: "aborted" };

/**
 * Streams a subscription after the start event was sent, closing it when the stream ends for any
 * reason.
 */
export async function* streamUpdates(
  sub: Subscription<ProcessUpdate>,
  ctx: HandlerContext,
): AsyncGenerator<{ event: EventInit }> {
  const interval = keepaliveMs(ctx);
  let pending: Promise<Wake> | undefined;
  try {
    for (;;) {
      pending ??= sub.next().then((update) => ({ kind: "update", update }) as const);
      const wake = await nextWake(pending, interval, ctx.signal);
      if (wake.kind === "aborted") return throwIfDeadline(ctx);
      if (wake.kind === "keepalive") {
        yield { event: { event: { case: "keepalive", value: {} } } };
        continue;
      }
      pending = undefined;
      if (!wake.update) return;
      yield toMessage(wake.update);
      if (wake.update.case === "end") return;
    }
  } finally {
    sub.close();
  }
}

/**
 * The first of: the next update, a keepalive tick, the call's abort. The timer and the abort listener
 * are made and removed per wait: racing every chunk against one long-lived abort promise would keep
 * each race (and the chunk it resolved with) reachable until the stream ends, so memory would grow
 * with the output.
 */
async function nextWake(pending: Promise<Wake>, interval: number, signal: AbortSignal): Promise<Wake> {
  if (signal.aborted) return { kind: "aborted" };
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const tick = new Promise<Wake>((resolve) => (timer = setTimeout(() => resolve({ kind: "keepalive" }), interval)));
  const aborted = new Promise<Wake>((resolve) => {
    onAbort = () => resolve({ kind: "aborted" });
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([pending, tick, aborted]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

/** Ends the stream with deadline_exceeded when the call's deadline passed (envd's wording). */
function throwIfDeadline(ctx: HandlerContext): void {
  const reason: unknown = ctx.signal.reason;
  if (reason instanceof ConnectError && reason.code === Code.DeadlineExceeded) {
    throw new ConnectError("context deadline exceeded", Code.DeadlineExceeded);
  }
}
