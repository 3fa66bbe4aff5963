/**
 * The `filesystem.Filesystem` Connect service of the emulator's envd: Stat, MakeDir, Move, ListDir
 * and Remove on the sandbox's data dir, with envd's codes and messages (paths in messages are
 * sandbox paths), and the watch RPCs (watchers.ts). Every path is found in the sandbox's own tree
 * (../links.ts) and changed through the dir that holds it (../../confined/ops.ts).
 */
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import type { Filesystem } from "../../../sdk/gen/filesystem/filesystem_pb";
import { mkdirAt, removeAt, renameAt, statAt } from "../../confined/ops";
import type { LocateOptions, Located } from "../../confined/walk";
import { locateDirIn, locateIn, using } from "../links";
import { makeDirAs } from "../ownership";
import { resolveSandboxPath } from "../paths";
import { homeOf, scopeOf, type RequestScope } from "../scope";
import { entryInfo } from "./entry";
import { listEntries } from "./list";
import { pollingWatchers, watchDir } from "./watchers";

/** What a locate failure means for one RPC: the error for a missing dir on the way, or a value to answer instead. */
type OnMissing = () => ConnectError | { answer: unknown };

/**
 * Finds a request path for the calling user (a `..` above `/` is invalid_argument). The last
 * segment's link is followed only for `followLast` (ListDir, MakeDir); Stat, Move and Remove act
 * on a link itself, as envd's lstat, rename and RemoveAll do.
 */
async function find(scope: RequestScope, requested: string, options: LocateOptions & { dir?: true }, onMissing: OnMissing): Promise<Located | { answer: unknown }> {
  const sandbox = resolveSandboxPath(requested, homeOf(scope));
  const finding = options.dir ? locateDirIn(scope.runtime, sandbox, options) : locateIn(scope.runtime, sandbox, options);
  return finding.catch((err: NodeJS.ErrnoException) => {
    if (err instanceof ConnectError) throw err;
    if (err.code === "ENOENT" || err.code === "ENOTDIR") {
      const outcome = onMissing();
      if (outcome instanceof ConnectError) throw outcome;
      return outcome;
    }
    if (err.code === "EROFS") throw readOnly(err.message.replace(/^EROFS: /, ""));
    throw new ConnectError(`error resolving path '${sandbox}': ${err.code ?? err.message}`, Code.Internal);
  });
}

const readOnly = (path: string) => new ConnectError(`cannot change '${path}': read-only file system`, Code.PermissionDenied);

async function run<T>(found: Located | { answer: unknown }, use: (at: Located) => Promise<T>): Promise<T> {
  if ("answer" in found) return found.answer as T;
  return using(Promise.resolve(found), use);
}

async function makeDir(scope: RequestScope, requested: string) {
  const sandbox = resolveSandboxPath(requested, homeOf(scope));
  const failed = (code: string) => new ConnectError(`failed to create directory: ${code}`, Code.Internal);
  const found = await find(scope, requested, { followLast: true, makeParent: makeDirAs(scope) }, () => failed("ENOTDIR"));
  return run(found, async (at) => {
    const existing = await statAt(at);
    if (existing?.isDirectory()) throw new ConnectError(`directory already exists: ${sandbox}`, Code.AlreadyExists);
    if (existing) throw new ConnectError(`path already exists but it is not a directory: ${sandbox}`, Code.InvalidArgument);
    if (at.readOnly) throw readOnly(at.path);
    await makeDirAs(scope)(at.dir, at.name).catch((err: NodeJS.ErrnoException) => {
      throw failed(err.code ?? err.message);
    });
    return { entry: await entryInfo(scope.runtime, at, sandbox) };
  });
}

async function move(scope: RequestScope, source: string, destination: string) {
  const [from, to] = [resolveSandboxPath(source, homeOf(scope)), resolveSandboxPath(destination, homeOf(scope))];
  const notFound = () => new ConnectError(`source file not found: rename ${from} ${to}: no such file or directory`, Code.NotFound);
  return run(await find(scope, source, {}, notFound), async (src) => {
    if (src.readOnly) throw readOnly(src.path);
    const created = await find(scope, destination, { makeParent: makeDirAs(scope) }, () => new ConnectError("failed to create directory: ENOTDIR", Code.Internal));
    return run(created, async (dst) => {
      if (dst.readOnly) throw readOnly(dst.path);
      await renameAt(src, dst).catch((err: NodeJS.ErrnoException) => {
        if (err.code === "ENOENT") throw notFound();
        throw new ConnectError(`error renaming: ${err.code ?? err.message}`, Code.Internal);
      });
      return { entry: await entryInfo(scope.runtime, dst, to) };
    });
  });
}

/** The service implementation for `router.service(Filesystem, …)`. */
export function filesystemService(): Partial<ServiceImpl<typeof Filesystem>> {
  return {
    watchDir,
    ...pollingWatchers,
    async stat(req, ctx) {
      const scope = scopeOf(ctx);
      const sandbox = resolveSandboxPath(req.path, homeOf(scope));
      const missing = () => new ConnectError(`file not found: lstat ${sandbox}: no such file or directory`, Code.NotFound);
      return run(await find(scope, req.path, {}, missing), async (at) => ({ entry: await entryInfo(scope.runtime, at, sandbox) }));
    },
    async listDir(req, ctx) {
      const scope = scopeOf(ctx);
      const sandbox = resolveSandboxPath(req.path, homeOf(scope));
      const missing = () => new ConnectError(`path not found: lstat ${sandbox}: no such file or directory`, Code.NotFound);
      // Found as a file first, to tell "not a directory" from "not found", as envd does.
      const kind = await run(await find(scope, req.path, { followLast: true }, missing), async (at) => (await statAt(at, { followLast: true }))?.isDirectory());
      if (kind === undefined) throw missing();
      if (!kind) throw new ConnectError(`path is not a directory: ${sandbox}`, Code.InvalidArgument);
      return run(await find(scope, req.path, { dir: true }, missing), async (at) => ({
        entries: await listEntries(scope.runtime, at, sandbox, req.depth === 0 ? 1 : req.depth),
      }));
    },
    makeDir: (req, ctx) => makeDir(scopeOf(ctx), req.path),
    move: (req, ctx) => move(scopeOf(ctx), req.source, req.destination),
    async remove(req, ctx) {
      const scope = scopeOf(ctx);
      // envd removes with os.RemoveAll: a missing path is not an error.
      return run(await find(scope, req.path, {}, () => ({ answer: {} })), async (at) => {
        if (at.readOnly) throw readOnly(at.path);
        // The root is the platform's data dir for this sandbox; wiping it would break the sandbox.
        if (at.path === "/") throw new ConnectError("cannot remove the sandbox root", Code.InvalidArgument);
        await removeAt(at).catch((err: NodeJS.ErrnoException) => {
          const why = err.code === "EBUSY" ? `'${at.path}' is a mount point (EBUSY)` : (err.code ?? err.message);
          throw new ConnectError(`error removing file or directory: ${why}`, Code.Internal);
        });
        return {};
      });
    },
  };
}
