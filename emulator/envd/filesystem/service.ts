/**
 * The `filesystem.Filesystem` Connect service of the emulator's envd: Stat, MakeDir, Move, ListDir
 * and Remove on the sandbox's data dir, with envd's codes and messages (paths in messages are
 * sandbox paths), and the watch RPCs (watchers.ts).
 */
import { realpath, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import { FileType, type Filesystem } from "../../../sdk/gen/filesystem/filesystem_pb";
import { followLinks } from "../links";
import { makeDirsAs } from "../ownership";
import { assertWritable, hostPathOf, joinSandbox, namesIn, resolveSandboxPath } from "../paths";
import { homeOf, scopeOf, type RequestScope } from "../scope";
import { entryInfo, type EntryInit } from "./entry";
import { pollingWatchers, watchDir } from "./watchers";

interface Located {
  /** The path as asked (what messages and answers name). */
  sandbox: string;
  /** The sandbox path it names once links are followed in the sandbox (links.ts). */
  real: string;
  host: string;
}

/**
 * Resolves a request path for the calling user: sandbox path and the host path behind it. The last
 * segment's link is followed only for `followLast` (ListDir, MakeDir); Stat, Move and Remove act on
 * a link itself, as envd's lstat, rename and RemoveAll do.
 */
async function locate(scope: RequestScope, requested: string, followLast = false): Promise<Located> {
  const sandbox = resolveSandboxPath(requested, homeOf(scope));
  const real = await followLinks(scope.runtime, sandbox, followLast);
  return { sandbox, real, host: hostPathOf(scope.runtime, real) };
}

async function located(ctx: HandlerContext, requested: string, followLast = false): Promise<{ scope: RequestScope; at: Located }> {
  const scope = scopeOf(ctx);
  return { scope, at: await locate(scope, requested, followLast) };
}

/** The directory a ListDir names, with symlinks (volume mounts) followed. */
async function directoryAt(at: Located): Promise<string> {
  const real = await realpath(at.host).catch(() => {
    throw new ConnectError(`path not found: lstat ${at.sandbox}: no such file or directory`, Code.NotFound);
  });
  if (!(await stat(real)).isDirectory()) {
    throw new ConnectError(`path is not a directory: ${at.sandbox}`, Code.InvalidArgument);
  }
  return real;
}

/**
 * Entries under a directory down to `depth` levels, parents before children, names in byte order
 * (Go's WalkDir order). Linked directories are not descended into, except volume mount points,
 * which are directories in a real sandbox.
 */
async function walk(scope: RequestScope, dir: Located, depth: number, out: EntryInit[]): Promise<void> {
  const names = (await namesIn(scope.runtime, dir.real, dir.host)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const name of names) {
    // The child's host path comes from its sandbox path, so a volume bound at a mount point (an
    // empty dir on the host side, with namespaces) is listed with the volume's content.
    const real = joinSandbox(dir.real, name);
    const child = { sandbox: joinSandbox(dir.sandbox, name), real, host: scope.runtime.isolation.mode === "namespaces" ? hostPathOf(scope.runtime, real) : path.join(dir.host, name) };
    const entry = await entryInfo(scope.runtime, child.host, child.sandbox).catch((err: unknown) => {
      // Gone since readdir: skip it, as envd does.
      if (err instanceof ConnectError && err.code === Code.NotFound) return undefined;
      throw err;
    });
    if (!entry) continue;
    out.push(entry);
    const descend = depth > 1 && entry.type === FileType.DIRECTORY && entry.symlinkTarget === undefined;
    if (descend) await walk(scope, child, depth - 1, out);
  }
}

async function makeDir(at: Located, scope: RequestScope) {
  const existing = await stat(at.host).catch(() => undefined);
  if (existing?.isDirectory()) {
    throw new ConnectError(`directory already exists: ${at.sandbox}`, Code.AlreadyExists);
  }
  if (existing) {
    throw new ConnectError(`path already exists but it is not a directory: ${at.sandbox}`, Code.InvalidArgument);
  }
  assertWritable(scope.runtime, at.real);
  await makeDirsAs(scope, at.host).catch((err: NodeJS.ErrnoException) => {
    throw new ConnectError(`failed to create directory: ${err.code ?? err.message}`, Code.Internal);
  });
  return { entry: await entryInfo(scope.runtime, at.host, at.sandbox) };
}

async function move(source: Located, destination: Located, scope: RequestScope) {
  assertWritable(scope.runtime, source.real);
  assertWritable(scope.runtime, destination.real);
  await makeDirsAs(scope, path.dirname(destination.host)).catch((err: NodeJS.ErrnoException) => {
    throw new ConnectError(`failed to create directory: ${err.code ?? err.message}`, Code.Internal);
  });
  await rename(source.host, destination.host).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") {
      throw new ConnectError(`source file not found: rename ${source.sandbox} ${destination.sandbox}: no such file or directory`, Code.NotFound);
    }
    throw new ConnectError(`error renaming: ${err.code ?? err.message}`, Code.Internal);
  });
  return { entry: await entryInfo(scope.runtime, destination.host, destination.sandbox) };
}

/** The service implementation for `router.service(Filesystem, …)`. */
export function filesystemService(): Partial<ServiceImpl<typeof Filesystem>> {
  return {
    watchDir,
    ...pollingWatchers,
    async stat(req, ctx) {
      const { scope, at } = await located(ctx, req.path);
      return { entry: await entryInfo(scope.runtime, at.host, at.sandbox) };
    },
    async listDir(req, ctx) {
      const { scope, at } = await located(ctx, req.path, true);
      const host = await directoryAt(at);
      const entries: EntryInit[] = [];
      await walk(scope, { ...at, host }, req.depth === 0 ? 1 : req.depth, entries);
      return { entries };
    },
    async makeDir(req, ctx) {
      const { scope, at } = await located(ctx, req.path, true);
      return makeDir(at, scope);
    },
    async move(req, ctx) {
      const { scope, at } = await located(ctx, req.source);
      return move(at, await locate(scope, req.destination), scope);
    },
    async remove(req, ctx) {
      // envd removes with os.RemoveAll: a missing path is not an error.
      const { scope, at } = await located(ctx, req.path);
      assertWritable(scope.runtime, at.real);
      // The root is the platform's data dir for this sandbox; wiping it would break the sandbox.
      if (at.sandbox === "/") throw new ConnectError("cannot remove the sandbox root", Code.InvalidArgument);
      await rm(at.host, { recursive: true, force: true }).catch((err: NodeJS.ErrnoException) => {
        throw new ConnectError(`error removing file or directory: ${err.code ?? err.message}`, Code.Internal);
      });
      return {};
    },
  };
}
