/**
 * Sandbox paths ↔ host paths. A sandbox's `/` is the host directory `rootDir`; a sandbox path is
 * always absolute and normalized (`/home/user/x`). Requests may also send `~/x` or a path relative
 * to the user's home, as envd accepts. A `..` that would climb above `/` is refused rather than
 * clamped, so no request path can name a host directory outside `rootDir` by itself (symlinks such
 * as volume mounts are followed by the OS, which is the point of them).
 */
import { realpath } from "node:fs/promises";
import path from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import type { SandboxRuntime } from "../types";

/**
 * Resolves a request path to a normalized absolute sandbox path: `~` and `~/…` expand to `home`,
 * relative paths (and the empty path) resolve against `home`. Throws invalid_argument on `~name`
 * and on a `..` above `/`.
 */
export function resolveSandboxPath(requested: string, home: string): string {
  let raw = requested;
  if (raw === "~" || raw.startsWith("~/")) raw = home + raw.slice(1);
  else if (raw.startsWith("~")) {
    throw new ConnectError(`failed to expand path '${requested}': cannot expand user-specific home dir`, Code.InvalidArgument);
  }
  if (!raw.startsWith("/")) raw = `${home}/${raw}`;
  const parts: string[] = [];
  for (const segment of raw.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment !== "..") parts.push(segment);
    else if (parts.pop() === undefined) {
      throw new ConnectError(`path '${requested}' escapes the sandbox root`, Code.InvalidArgument);
    }
  }
  return `/${parts.join("/")}`;
}

/** Host path that stands for a normalized sandbox path. */
export function hostPathOf(runtime: SandboxRuntime, sandboxPath: string): string {
  return path.join(runtime.rootDir, sandboxPath);
}

/** Joins a child name onto a sandbox directory path. */
export function joinSandbox(dir: string, name: string): string {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}

/** The volume mounted exactly at this sandbox path, if any. */
export function mountAt(runtime: SandboxRuntime, sandboxPath: string): SandboxRuntime["volumeMounts"][number] | undefined {
  return runtime.volumeMounts.find((m) => resolveSandboxPath(m.path, "/") === sandboxPath);
}

/**
 * Maps a resolved host path back into the sandbox: under rootDir, or under a mounted volume's
 * host dir. Undefined when the host path lies outside both (a link a command made to the host).
 */
export async function sandboxPathOfHost(runtime: SandboxRuntime, hostPath: string): Promise<string | undefined> {
  const bases: { host: string; sandbox: string }[] = [];
  for (const mount of runtime.volumeMounts) {
    bases.push({ host: await realOrSelf(mount.hostDir), sandbox: resolveSandboxPath(mount.path, "/") });
  }
  bases.push({ host: await realOrSelf(runtime.rootDir), sandbox: "/" });
  for (const base of bases) {
    const rel = path.relative(base.host, hostPath);
    if (rel === "") return base.sandbox;
    if (!rel.startsWith("..") && !path.isAbsolute(rel)) {
      return resolveSandboxPath(rel, base.sandbox);
    }
  }
  return undefined;
}

async function realOrSelf(p: string): Promise<string> {
  return realpath(p).catch(() => p);
}
