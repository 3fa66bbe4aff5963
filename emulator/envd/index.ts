/**
 * The in-sandbox API ("envd") of the emulator: the `process.Process` and `filesystem.Filesystem`
 * Connect services (Connect, gRPC-web and gRPC protocols; JSON and binary codecs, via
 * `connectNodeAdapter`), envd's `/files` transfer and `/health`, behind the proxy and token checks
 * of gate.ts.
 *
 * Commands run in the sandbox's own Linux namespaces when the host allows it (./isolation): its
 * own `/`, users and process list. Where it does not (isolation `none`), they are ordinary host
 * processes with the emulator's rights; only cwd, HOME and file paths are mapped into the
 * sandbox's data dir (`rootDir`).
 *
 * Each sandbox has its own process registry; when the directory reports a sandbox stopped, or the
 * emulator closes, the connections open to it are cut and its processes are killed.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Code, ConnectError, createContextValues, type Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Process } from "../../sdk/gen/process/process_pb";
import { observeResponse, type ExchangeObserver } from "../exchanges";
import type { SandboxDirectory, SandboxRuntime } from "../types";
import { accountsOf, BUILT_IN_ACCOUNTS, type Account } from "./accounts";
import { refuseControlPlane } from "./control-plane";
import { serveFiles } from "./files";
import { NewestFilesystem } from "./filesystem/newest-proto";
import { filesystemService } from "./filesystem/service";
import { ENVD_PORT, notFound, refuseAtEnvd, refuseAtProxy, refuseResume, resumeRequestOf, sendError, targetOf, type SandboxTarget } from "./gate";
import { isConnectPath, serveEnvdHttp } from "./http-api";
import { resolveLimits, type SandboxLimits } from "./limits";
import { servePort } from "./ports/serve";
import { isUpgrade } from "./ports/upgrade";
import { binaryProcessStreams } from "./process/binary-stream";
import type { ManagedProcess } from "./process/managed";
import { processService } from "./process/service";
import type { EgressHosts } from "./network/egress-proxy";
import { SandboxStates, type SandboxState } from "./sandboxes";
import { scopeKey, userFromAuthorization, type RequestScope } from "./scope";
import { isSignedFiles, signedTarget } from "./signing";

export interface EnvdOptions {
  directory: SandboxDirectory;
  /** How long Connect still replays the end of a process that ended, in ms. Default 30 000 (envd's). */
  exitRetentionMs?: number;
  /** What each sandbox may use; defaults in limits.ts. */
  limits?: Partial<SandboxLimits>;
  /** Sees each answer of envd's plain HTTP API (not the proxy's, not the Connect services'). */
  onExchange?: ExchangeObserver | undefined;
  /** Told of each process a sandbox's Start spawns, before its first output (the page's process log); read only. */
  onSpawn?: ((sandboxID: string, proc: ManagedProcess) => void) | undefined;
  /** Names sandboxes' egress resolves to fixed addresses before DNS (network/egress-proxy.ts). */
  egressHosts?: EgressHosts | undefined;
}

export interface EnvdHandler {
  /** True when the request is for the in-sandbox API (routing header or `{port}-{id}.` host label). */
  matches(req: IncomingMessage): boolean;
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** True for an upgrade request (WebSocket...) to a sandbox port other than envd's (see ports/upgrade.ts). */
  upgrades(req: IncomingMessage): boolean;
  /** Kills every process of every sandbox and waits until they ended; called when the emulator stops. */
  close(): Promise<void>;
}

/** Refuses calls whose `Authorization: Basic` names an unknown user, as envd's authn middleware. */
const userCheck: Interceptor = (next) => (req) => {
  const invalid = req.contextValues.get(scopeKey)?.invalidUser;
  if (invalid !== undefined) throw new ConnectError(`invalid username: '${invalid}'`, Code.Unauthenticated);
  return next(req);
};

/** Creates the in-sandbox API handler over a directory of running sandboxes. */
export function createEnvdHandler(options: EnvdOptions): EnvdHandler {
  const sandboxes = new SandboxStates(options.exitRetentionMs, options.onSpawn, options.egressHosts);
  const limits = resolveLimits(options.limits);
  const scopes = new WeakMap<IncomingMessage, RequestScope>();
  follow(options.directory, sandboxes);
  const process = processService();
  const contextOf = (req: IncomingMessage) => createContextValues().set(scopeKey, scopes.get(req));
  const adapter = connectNodeAdapter({
    routes: (router) => {
      router.service(Process, process);
      router.service(NewestFilesystem, filesystemService());
    },
    interceptors: [userCheck],
    contextValues: (req) => contextOf(req as IncomingMessage),
    fallback: notFound,
  });
  const binaryStreams = binaryProcessStreams(process, { interceptors: [userCheck], contextValues: contextOf });
  return {
    matches: (req) => targetOf(req) !== undefined || isSignedFiles(req),
    upgrades: (req) => isUpgrade(req) && (targetOf(req)?.port ?? ENVD_PORT) !== ENVD_PORT,
    handle(req, res) {
      const target = targetOf(req) ?? bySignature(req, options.directory);
      // No running sandbox's token made this signature.
      if (!target) return isSignedFiles(req) ? sendError(res, 401, "invalid signature") : notFound(req, res);
      if (refuseControlPlane(req, res, target)) return;
      const { directory } = options;
      // A paused sandbox with auto-resume comes back for this request, or refuses it (store/auto-resume.ts).
      const resume = directory.running(target.sandboxID) ? undefined : directory.resumeOnRequest?.(target.sandboxID, resumeRequestOf(req, target));
      if (!resume) return serve(req, res, target);
      void resume.then(
        (outcome) => (outcome === "resumed" || outcome === "not-resumed" ? serve(req, res, target) : refuseResume(req, res, target, outcome)),
        () => serve(req, res, target),
      );
    },
    close: () => sandboxes.stopAll(),
  };

  function serve(req: IncomingMessage, res: ServerResponse, target: SandboxTarget): void {
    const runtime = options.directory.running(target.sandboxID);
    if (refuseAtProxy(req, res, target, runtime) || !runtime) return;
    if (afterRunFiles(sandboxes, target, runtime, () => serve(req, res, target))) return;
    if (target.port !== ENVD_PORT) return void servePort(req, res, target.port, runtime, sandboxes.of(target.sandboxID));
    const http = !isConnectPath((req.url ?? "/").split("?")[0] ?? "/");
    if (http && options.onExchange) observeResponse(req, res, "envd", options.onExchange);
    if (refuseAtEnvd(req, res, runtime) || (http && serveEnvdHttp(req, res, runtime))) return;
    const state = sandboxes.of(target.sandboxID);
    state.track(res);
    withAccounts(runtime, (accounts) => {
      const scope = scopeOfCall(req, runtime, state, limits, accounts);
      if ((req.url ?? "").split("?")[0] === "/files") return void serveFiles(req, res, scope);
      scopes.set(req, scope);
      if (!binaryStreams(req, res)) adapter(req, res);
    });
  }
}

/** What the platform side tells of its sandboxes, passed on to their in-sandbox state. */
function follow(directory: SandboxDirectory, sandboxes: SandboxStates): void {
  directory.onStopped((sandboxID) => void sandboxes.stop(sandboxID));
  directory.onFrozen?.((sandboxID) => sandboxes.freeze(sandboxID));
  directory.onThawed?.((sandboxID) => sandboxes.thaw(sandboxID));
  directory.onNetworkChanged?.(async (sandboxID) => {
    const runtime = directory.running(sandboxID);
    if (runtime) await sandboxes.applyEgress(runtime);
  });
}

/** A signed /files URL made from a shared sandbox URL names no sandbox; its signature does (./signing.ts). */
function bySignature(req: IncomingMessage, directory: SandboxDirectory): SandboxTarget | undefined {
  const signer = signedTarget(req, directory.allRunning());
  return signer ? { sandboxID: signer.sandboxID, port: ENVD_PORT } : undefined;
}

/** Runs `then` with the sandbox's accounts: at once on the host's dirs; an image sandbox's passwd is read for each call (a command may add a user). */
function withAccounts(runtime: SandboxRuntime, then: (accounts: readonly Account[]) => void): void {
  if (runtime.imageDir === undefined) return then(BUILT_IN_ACCOUNTS);
  void accountsOf(runtime).then(then);
}

/** What a call knows of where it runs (scope.ts), its user read from its `Authorization`. */
function scopeOfCall(req: IncomingMessage, runtime: SandboxRuntime, state: SandboxState, limits: SandboxLimits, accounts: readonly Account[]): RequestScope {
  return {
    runtime, registry: state.registry, watchers: state.watchers, limits, namespace: () => state.namespace(runtime), accounts,
    ...userFromAuthorization(req.headers.authorization, accounts, runtime.defaults?.user),
  };
}

/**
 * envd's /run/e2b files exist before its first answer of a start (run-files.ts): while they are
 * being written, `serve` runs again once they are, and this says true. Ports need none.
 */
function afterRunFiles(sandboxes: SandboxStates, target: SandboxTarget, runtime: SandboxRuntime, serve: () => void): boolean {
  const pending = target.port === ENVD_PORT ? sandboxes.of(target.sandboxID).runFilesPending(runtime) : undefined;
  if (pending) void pending.then(serve);
  return pending !== undefined;
}
