/**
 * Sandbox paths ↔ host paths. A sandbox's `/` is the host directory `rootDir`; a sandbox path is
 * always absolute and normalized (`/home/user/x`). Requests may also send `~/x` or a path relative
 * to the user's home, as envd accepts. A `..` that would climb above `/` is refused rather than
 * clamped, so no request path can name a host directory outside `rootDir` by itself. Volume mount
 * points and (with namespaces) the read-only system dirs map to their own host dirs, so the file
 * API sees what the sandbox's commands see.
 */
import { lstatSync } from "node:fs";
import { readdir, realpath } from "node:fs/promises";
import path from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import type { SandboxRuntime } from "../types";
import { accountBinds, systemBindsOf, systemDirOf } from "./isolation/layout";

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

/** A host dir or file that a sandbox path stands for, other than the sandbox's own root dir. */
export interface PathMount {
  sandboxPath: string;
  hostPath: string;
  readOnly: boolean;
  /** Template files shown over `hostPath` (isolation/layout.ts): a path found here is this one. */
  layer?: string;
}

/**
 * What is mounted into the sandbox, deepest first: its volumes (read-write) and, with namespaces,
 * the host's system dirs (with the template's files over them) and the sandbox's account files
 * (read-only), as isolation/layout.ts lays them out. A volume at `/` is the root dir itself, so it needs no entry.
 */
export function mountsOf(runtime: SandboxRuntime): readonly PathMount[] {
  // Taken once per runtime (one per request): a listing maps every entry's path, and finding the
  // template layers reads a dir per system dir.
  let mounts = mountsByRuntime.get(runtime);
  if (!mounts) mountsByRuntime.set(runtime, (mounts = computeMounts(runtime)));
  return mounts;
}

const mountsByRuntime = new WeakMap<SandboxRuntime, readonly PathMount[]>();

function computeMounts(runtime: SandboxRuntime): PathMount[] {
  const mounts: PathMount[] = runtime.volumeMounts
    .map((m) => ({ sandboxPath: resolveSandboxPath(m.path, "/"), hostPath: m.hostDir, readOnly: false }))
    .filter((m) => m.sandboxPath !== "/");
  if (runtime.isolation.mode === "namespaces") {
    for (const b of systemBindsOf(runtime.rootDir)) {
      mounts.push({ sandboxPath: b.sandboxPath, hostPath: b.hostPath, readOnly: true, ...(b.layered ? { layer: path.join(runtime.rootDir, b.sandboxPath) } : {}) });
    }
    mounts.push(...accountBinds(systemDirOf(runtime.rootDir)).map((b) => ({ ...b, readOnly: true })));
  }
  return mounts.sort((a, b) => b.sandboxPath.length - a.sandboxPath.length);
}

function mountHolding(runtime: SandboxRuntime, sandboxPath: string): PathMount | undefined {
  return mountsOf(runtime).find((m) => sandboxPath === m.sandboxPath || sandboxPath.startsWith(`${m.sandboxPath}/`));
}

/** Host path that stands for a normalized sandbox path. */
export function hostPathOf(runtime: SandboxRuntime, sandboxPath: string): string {
  const mount = mountHolding(runtime, sandboxPath);
  if (!mount) return path.join(runtime.rootDir, sandboxPath);
  const rest = sandboxPath.slice(mount.sandboxPath.length);
  if (mount.layer !== undefined && lstatSync(mount.layer + rest, { throwIfNoEntry: false })) return mount.layer + rest;
  return mount.hostPath + rest;
}

/**
 * The names in the sandbox dir `sandboxDir`, whose host path is `hostDir`: under a layered system
 * dir, the template's and the host's together, as the sandbox's overlay shows them.
 */
export async function namesIn(runtime: SandboxRuntime, sandboxDir: string, hostDir: string): Promise<string[]> {
  const names = await readdir(hostDir);
  const mount = mountHolding(runtime, sandboxDir);
  if (mount?.layer === undefined) return names;
  const rest = sandboxDir.slice(mount.sandboxPath.length);
  const other = hostDir === mount.layer + rest ? mount.hostPath + rest : mount.layer + rest;
  return [...new Set([...names, ...(await readdir(other).catch(() => []))])];
}

/**
 * Refuses a change under a read-only system dir, as the sandbox's own file system would (EROFS):
 * the file API runs as the host's root and must not write the host's files for a sandbox.
 */
export function assertWritable(runtime: SandboxRuntime, sandboxPath: string): void {
  if (mountHolding(runtime, sandboxPath)?.readOnly) {
    throw new ConnectError(`cannot change '${sandboxPath}': read-only file system`, Code.PermissionDenied);
  }
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
  for (const mount of mountsOf(runtime)) {
    bases.push({ host: await realOrSelf(mount.hostPath), sandbox: mount.sandboxPath });
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
