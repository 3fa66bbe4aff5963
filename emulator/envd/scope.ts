/**
 * What every in-sandbox call knows about where it runs: the sandbox (from the routing gate), its
 * process registry and the selected user. Handed to the Connect handlers as a context value.
 */
import { Code, ConnectError, createContextKey, type HandlerContext } from "@connectrpc/connect";
import type { SandboxRuntime } from "../types";
import { BUILT_IN_ACCOUNTS, type Account } from "./accounts";
import { hostId } from "./isolation/layout";
import type { WatcherRegistry } from "./filesystem/watcher-registry";
import type { SandboxLimits } from "./limits";
import type { SandboxNamespace } from "./isolation/namespace";
import type { ProcessRegistry } from "./process/registry";


export interface RequestScope {
  runtime: SandboxRuntime;
  registry: ProcessRegistry;
  /** What the sandbox may use (processes, file sizes). */
  limits: SandboxLimits;
  /** The sandbox's polling watchers (CreateWatcher and the rest). */
  watchers: WatcherRegistry;
  /** The sandbox's namespaces (started on first use), or undefined when sandboxes are not isolated. */
  namespace: () => Promise<SandboxNamespace> | undefined;
  /** The user from `Authorization: Basic`, else the template's USER, else `user`: one of the sandbox's accounts. */
  user: Account;
  /** The sandbox's accounts when the call came (accounts.ts): what `?username=` may name. */
  accounts: readonly Account[];
  /** Set when the Basic header named an unknown user; the auth interceptor refuses the call. */
  invalidUser?: string;
}

export const scopeKey = createContextKey<RequestScope | undefined>(undefined, { description: "envd request scope" });

/** The scope of a call; every call that reaches a handler passed the routing gate, which sets it. */
export function scopeOf(ctx: HandlerContext): RequestScope {
  const scope = ctx.values.get(scopeKey);
  if (!scope) throw new ConnectError("request did not pass the sandbox gate", Code.Internal);
  return scope;
}

/**
 * Reads the user from an `Authorization: Basic base64("<user>:")` header, among the sandbox's
 * `accounts` (accounts.ts). Other schemes and a missing header select the default user (`fallback`:
 * the template's USER, else `user`), as envd does.
 */
export function userFromAuthorization(header: string | undefined, accounts: readonly Account[], fallback = "user"): { user: Account; invalidUser?: string } {
  const named = (name: string) => accounts.find((a) => a.name === name);
  const standIn = named("user") ?? BUILT_IN_ACCOUNTS[1]!;
  const match = /^Basic\s+(\S+)$/i.exec(header ?? "");
  if (!match?.[1]) return { user: named(fallback) ?? standIn };
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const name = decoded.includes(":") ? decoded.slice(0, decoded.indexOf(":")) : decoded;
  const known = named(name);
  return known ? { user: known } : { user: standIn, invalidUser: name };
}

/** The host id that what the calling user makes must belong to; undefined without namespaces. */
export function hostOwnerOf(scope: RequestScope): number | undefined {
  return hostId(scope.runtime.isolation, scope.user.uid);
}

/** Sandbox path of the calling user's home, from its account. */
export function homeOf(scope: RequestScope): string {
  return scope.user.home;
}
