/**
 * The proxy's retries of a port that is not open yet, as the service's sandbox proxy dials
 * (docs/service.md#sandbox-ports; infra: packages/shared/pkg/proxy/pool/client.go, DialContext, with
 * `SandboxProxyRetries` = 5 from packages/shared/pkg/proxy/proxy.go): up to 5 dials, 100, 200, 300
 * and 400 ms apart, a second of waiting in all before the closed-port 502. The service retries so
 * that a server that has only just started listening (envd's port forwarding takes a moment) still
 * gets the request; a request sent as a server starts gets it here too. A client gone ends the
 * retries, as the request's context ends the service's.
 */
import type { Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/** Dials the service makes before it answers 502. */
export const PORT_DIAL_ATTEMPTS = 5;

/** The wait after the failed dial number `attempt` (from 0): linear, 100 ms more each time. */
export const portDialBackoffMs = (attempt: number): number => 100 * (attempt + 1);

/** `dial` until it gives a stream, at most PORT_DIAL_ATTEMPTS times; undefined when none came or `gone()`. */
export async function dialWithRetries(dial: () => Promise<Socket | undefined>, gone: () => boolean): Promise<Socket | undefined> {
  for (let attempt = 0; ; attempt++) {
    const socket = await dial();
    if (socket || attempt === PORT_DIAL_ATTEMPTS - 1 || gone()) return socket;
    await sleep(portDialBackoffMs(attempt));
    if (gone()) return undefined;
  }
}
