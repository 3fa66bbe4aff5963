/**
 * The watch RPCs: WatchDir (a server stream: `start`, then `filesystem` events, `keepalive` when
 * idle for `Keepalive-Ping-Interval` seconds) and the polling form, CreateWatcher /
 * GetWatcherEvents (the events since the last poll) / RemoveWatcher, over the sandbox's
 * registry (watcher-registry.ts), so its polling watchers end with it.
 */
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import type { CreateWatcherRequest, WatchDirRequest } from "../../../sdk/gen/filesystem/filesystem_pb";
import { statAt } from "../../confined/ops";
import { sandboxMayRead } from "../host-access";
import { locateDirIn, locateIn, using } from "../links";
import { resolveSandboxPath } from "../paths";
import { keepaliveMs } from "../process/stream";
import { homeOf, scopeOf } from "../scope";
import { DirWatch, type WatchEvent, type WatchTarget } from "./watch";

/** The directory a watch request names, for the calling user, checked as envd checks it; close its `found` when done. */
async function targetOf(req: WatchDirRequest | CreateWatcherRequest, ctx: HandlerContext): Promise<WatchTarget> {
  const scope = scopeOf(ctx);
  const sandbox = resolveSandboxPath(req.path, homeOf(scope));
  const notFound = () => new ConnectError(`path ${sandbox} not found`, Code.NotFound);
  const isDir = await using(locateIn(scope.runtime, sandbox, { followLast: true }), async (at) => (await statAt(at, { followLast: true }))?.isDirectory()).catch(
    (err: unknown) => {
      if (err instanceof ConnectError) throw err;
      return undefined;
    },
  );
  if (isDir === undefined) throw notFound();
  if (!isDir) throw new ConnectError(`path ${sandbox} not a directory`, Code.InvalidArgument);
  const found = await locateDirIn(scope.runtime, sandbox).catch(() => Promise.reject(notFound()));
  // A host dir the sandbox may not list may not be watched either (../host-access.ts).
  const st = await statAt(found).catch(() => undefined);
  if (!st || !sandboxMayRead(scope.runtime, st)) {
    await found.close();
    throw new ConnectError(`error adding path ${sandbox} to watcher: permission denied`, Code.Internal);
  }
  return { runtime: scope.runtime, sandbox, found, recursive: req.recursive, includeEntry: req.includeEntry };
}

type Wake = { kind: "event" } | { kind: "keepalive" } | { kind: "aborted" };

/** WatchDir: streams the directory's events until the client goes or the sandbox stops. */
export async function* watchDir(req: WatchDirRequest, ctx: HandlerContext) {
  const target = await targetOf(req, ctx);
  const pending: WatchEvent[] = [];
  let wake: ((w: Wake) => void) | undefined;
  const watch = new DirWatch(target, (e) => {
    pending.push(e);
    wake?.({ kind: "event" });
  });
  const interval = keepaliveMs(ctx);
  try {
    yield { event: { case: "start" as const, value: {} } };
    while (!ctx.signal.aborted) {
      const event = pending.shift();
      if (event) {
        yield { event: { case: "filesystem" as const, value: event } };
        continue;
      }
      const woke = await new Promise<Wake>((resolve) => {
        const done = (w: Wake) => {
          clearTimeout(timer);
          ctx.signal.removeEventListener("abort", onAbort);
          wake = undefined;
          resolve(w);
        };
        const timer = setTimeout(() => done({ kind: "keepalive" }), interval);
        const onAbort = () => done({ kind: "aborted" });
        ctx.signal.addEventListener("abort", onAbort, { once: true });
        wake = done;
      });
      if (woke.kind === "keepalive") yield { event: { case: "keepalive" as const, value: {} } };
    }
  } finally {
    watch.close();
  }
}

/** CreateWatcher / GetWatcherEvents / RemoveWatcher over the sandbox's registry. */
export const pollingWatchers = {
  async createWatcher(req: CreateWatcherRequest, ctx: HandlerContext) {
    const target = await targetOf(req, ctx);
    return { watcherId: scopeOf(ctx).watchers.add(target) };
  },
  async getWatcherEvents(req: { watcherId: string }, ctx: HandlerContext) {
    return { events: await scopeOf(ctx).watchers.take(req.watcherId) };
  },
  removeWatcher(req: { watcherId: string }, ctx: HandlerContext) {
    scopeOf(ctx).watchers.remove(req.watcherId);
    return {};
  },
};
