/**
 * A browser's state-changing request from another site is refused before any route runs: the page
 * holds the API key, and a page elsewhere must not make the browser act with it (CSRF). A browser
 * says where a request comes from (`Sec-Fetch-Site`, `Origin`); the SDKs, the CLI and curl send
 * neither, so they are never refused. Reads stay open: a cross-origin read gets no CORS header, so
 * the browser keeps its answer from the other page. Sandbox ports are not concerned: they are the
 * user's own servers, served by envd's handler before this check.
 */
import type { IncomingMessage } from "node:http";
import { ApiError, errorReply, type Reply } from "../http";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The 403 for a state-changing request that a browser made from another origin; undefined for any other. */
export function crossSiteRefusal(req: IncomingMessage): Reply | undefined {
  if (SAFE_METHODS.has(req.method ?? "GET")) return undefined;
  const site = one(req.headers["sec-fetch-site"]);
  const origin = one(req.headers.origin);
  const crossSite = site !== undefined && site !== "same-origin" && site !== "none";
  const otherOrigin = origin !== undefined && origin !== requestOrigin(req);
  if (!crossSite && !otherOrigin) return undefined;
  return errorReply(new ApiError(403, `cross-origin request refused: the emulator takes a ${req.method} only from its own page or from a client that sends no Origin (this one came from ${origin ?? site})`));
}

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The origin a request was sent to: its scheme and Host. */
function requestOrigin(req: IncomingMessage): string {
  const scheme = (req.socket as { encrypted?: boolean }).encrypted ? "https" : "http";
  return `${scheme}://${req.headers.host ?? ""}`;
}
