/**
 * The `filesystem.Filesystem` Connect service of the emulator's envd: Stat, MakeDir, Move, ListDir
 * and Remove on the sandbox's data dir, with envd's codes and messages (paths in messages are
 * sandbox paths). The watch RPCs are not served (unimplemented).
 */
import { mkdir, readdir, realpath, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import { FileType, type Filesystem } from "../../../sdk/gen/filesystem/filesystem_pb";
import { hostPathOf, joinSandbox, resolveSandboxPath } from "../paths";
import { homeOf, scopeOf, type RequestScope } from "../scope";
import { entryInfo, type EntryInit } from "./entry";

interface Located {
  sandbox: string;
  host: string;
}

/** Resolves a request path for the calling user: sandbox path and the host path behind it. */
function locate(scope: RequestScope, requested: string): Located {
  const sandbox = resolveSandboxPath(requested, homeOf(scope));
  return { sandbox, host: hostPathOf(scope.runtime, sandbox) };
}

function located(ctx: HandlerContext, requested: string): { scope: RequestScope; at: Located } {
  const scope = scopeOf(ctx);
  return { scope, at: locate(scope, requested) };
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
  const names = (await readdir(dir.host)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const name of names) {
    const child = { sandbox: joinSandbox(dir.sandbox, name), host: path.join(dir.host, name) };
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
  await mkdir(at.host, { recursive: true }).catch((err: NodeJS.ErrnoException) => {
    throw new ConnectError(`failed to create directory: ${err.code ?? err.message}`, Code.Internal);
  });
  return { entry: await entryInfo(scope.runtime, at.host, at.sandbox) };
}

async function move(source: Located, destination: Located, scope: RequestScope) {
  await mkdir(path.dirname(destination.host), { recursive: true }).catch((err: NodeJS.ErrnoException) => {
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
    async stat(req, ctx) {
      const { scope, at } = located(ctx, req.path);
      return { entry: await entryInfo(scope.runtime, at.host, at.sandbox) };
    },
    async listDir(req, ctx) {
      const { scope, at } = located(ctx, req.path);
      const host = await directoryAt(at);
      const entries: EntryInit[] = [];
      await walk(scope, { sandbox: at.sandbox, host }, req.depth === 0 ? 1 : req.depth, entries);
      return { entries };
    },
    makeDir(req, ctx) {
      const { scope, at } = located(ctx, req.path);
      return makeDir(at, scope);
    },
    move(req, ctx) {
      const { scope, at } = located(ctx, req.source);
      return move(at, locate(scope, req.destination), scope);
    },
    async remove(req, ctx) {
      // envd removes with os.RemoveAll: a missing path is not an error.
      const { at } = located(ctx, req.path);
      // The root is the platform's data dir for this sandbox; wiping it would break the sandbox.
      if (at.sandbox === "/") throw new ConnectError("cannot remove the sandbox root", Code.InvalidArgument);
      await rm(at.host, { recursive: true, force: true }).catch((err: NodeJS.ErrnoException) => {
        throw new ConnectError(`error removing file or directory: ${err.code ?? err.message}`, Code.Internal);
      });
      return {};
    },
  };
}
