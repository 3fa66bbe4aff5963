/**
 * A route table: method + path pattern (`/sandboxes/:id/pause`) → handler. Of the routes that match,
 * the one with the most literal segments wins (`/sandboxes/metrics` over `/sandboxes/:id`, wherever
 * each is listed); among equals, the one listed first.
 */
import type { IncomingMessage } from "node:http";
import { authenticate, type AuthMode, type Credentials } from "./auth";
import { ApiError, parseJsonText, readBytes, readText, type Reply, type RequestContext } from "./http";

/** A route handler: returns a reply or throws an ApiError. */
export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>;

/** One row of the route table. */
export interface Route {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  pattern: string;
  /** Credentials accepted; `none` for unauthenticated routes such as /health. */
  auth: AuthMode | "none";
  handler: Handler;
}

interface CompiledRoute extends Route {
  regex: RegExp;
  names: string[];
  literals: number;
}

/** The compiled route table. */
export interface Router {
  /**
   * Authenticates, matches and runs the route; throws ApiError for 401/404/405 and handler errors.
   * When `seen` is given, the request body the handler parsed is stored in it (for exchange observers).
   */
  dispatch(req: IncomingMessage, url: URL, seen?: SeenRequest): Promise<Reply>;
}

/** What a dispatch saw of the request, filled in only when asked for. */
export interface SeenRequest {
  /** Whether the handler read the body; an unread body is not known. */
  requestRead?: boolean;
  requestBody?: unknown;
}

/** Compiles a route table; routes are tried in the given order. */
export function createRouter(routes: Route[], creds: Credentials): Router {
  const compiled = routes.map(compile);
  return {
    async dispatch(req, url, seen) {
      const method = req.method ?? "GET";
      const candidates = compiled.map((r) => ({ r, m: r.regex.exec(url.pathname) })).filter((c) => c.m !== null);
      if (candidates.length === 0) throw new ApiError(404, `no route for ${method} ${url.pathname}`);
      const hit = candidates.filter((c) => c.r.method === method).sort((a, b) => b.r.literals - a.r.literals)[0];
      if (!hit) throw new ApiError(405, `method ${method} is not allowed on ${url.pathname}`);
      if (hit.r.auth !== "none") authenticate(hit.r.auth, req.headers, creds);
      return hit.r.handler(context(req, url, method, hit.r.names, hit.m!, seen));
    },
  };
}

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.pattern
    .split("/")
    .map((part) => {
      if (!part.startsWith(":")) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(part.slice(1));
      return "([^/]+)";
    })
    .join("/");
  const literals = route.pattern.split("/").filter((part) => part !== "" && !part.startsWith(":")).length;
  return { ...route, regex: new RegExp(`^${source}/?$`), names, literals };
}

function context(req: IncomingMessage, url: URL, method: string, names: string[], m: RegExpExecArray, seen?: SeenRequest): RequestContext {
  const params: Record<string, string> = {};
  names.forEach((name, i) => (params[name] = decodeSegment(m[i + 1] ?? "")));
  let body: Promise<unknown> | undefined;
  return {
    method,
    path: url.pathname,
    query: url.searchParams,
    params,
    headers: req.headers,
    origin: `${(req.socket as { encrypted?: boolean }).encrypted ? "https" : "http"}://${req.headers.host ?? "127.0.0.1"}`,
    json: () =>
      (body ??= readText(req)
        .then(parseJsonText)
        .then((value) => {
          if (seen) seen.requestRead = true;
          if (seen && value !== undefined) seen.requestBody = value;
          return value;
        })),
    bytes: (limit) => readBytes(req, limit),
  };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ApiError(400, `invalid percent-encoding in path segment '${segment}'`);
  }
}
