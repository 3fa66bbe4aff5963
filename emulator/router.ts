/**
 * A route table: method + path pattern (`/sandboxes/:id/pause`) → handler, tried in order, so a
 * literal route (`/sandboxes/metrics`) listed before a parameterised one (`/sandboxes/:id`) wins.
 */
import type { IncomingMessage } from "node:http";
import { authenticate, type AuthMode, type Credentials } from "./auth";
import { ApiError, parseJsonText, readText, type Reply, type RequestContext } from "./http";

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
}

/** The compiled route table. */
export interface Router {
  /** Authenticates, matches and runs the route; throws ApiError for 401/404/405 and handler errors. */
  dispatch(req: IncomingMessage, url: URL): Promise<Reply>;
}

/** Compiles a route table; routes are tried in the given order. */
export function createRouter(routes: Route[], creds: Credentials): Router {
  const compiled = routes.map(compile);
  return {
    async dispatch(req, url) {
      const method = req.method ?? "GET";
      const candidates = compiled.map((r) => ({ r, m: r.regex.exec(url.pathname) })).filter((c) => c.m !== null);
      if (candidates.length === 0) throw new ApiError(404, `no route for ${method} ${url.pathname}`);
      const hit = candidates.find((c) => c.r.method === method);
      if (!hit) throw new ApiError(405, `method ${method} is not allowed on ${url.pathname}`);
      if (hit.r.auth !== "none") authenticate(hit.r.auth, req.headers, creds);
      return hit.r.handler(context(req, url, method, hit.r.names, hit.m!));
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
  return { ...route, regex: new RegExp(`^${source}/?$`), names };
}

function context(req: IncomingMessage, url: URL, method: string, names: string[], m: RegExpExecArray): RequestContext {
  const params: Record<string, string> = {};
  names.forEach((name, i) => (params[name] = decodeSegment(m[i + 1] ?? "")));
  let body: Promise<unknown> | undefined;
  return {
    method,
    path: url.pathname,
    query: url.searchParams,
    params,
    headers: req.headers,
    json: () => (body ??= readText(req).then(parseJsonText)),
  };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ApiError(400, `invalid percent-encoding in path segment '${segment}'`);
  }
}
