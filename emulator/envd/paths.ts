/**
 * Sandbox paths ↔ host paths. A sandbox's `/` is the host directory `rootDir`; a sandbox path is
 * always absolute and normalized (`/home/user/x`). Requests may also send `~/x` or a path relative
 * to the user's home, as envd accepts. A `..` that would climb above `/` is refused rather than
 * clamped, so no request path can name a host directory outside `rootDir` by itself. Volume mount
 * points and (with namespaces) the read-only system dirs map to their own host dirs, so the file
 * API sees what the sandbox's commands see. The file API finds paths with links.ts, which walks
 * these mounts; a host path as a string is only handed to the OS where it may follow links.
 */
import { lstatSync } from "node:fs";
import { realpath } from "node:fs/promises";
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
  /** A host file bound at `sandboxPath` (the account files), not a dir. */
  file?: true;
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
  // An image sandbox shows no host dir (envd/isolation/setup-script.ts): only its volumes are mounts.
  if (runtime.isolation.mode === "namespaces" && runtime.imageDir === undefined) {
    for (const b of systemBindsOf(runtime.rootDir)) {
      mounts.push({ sandboxPath: b.sandboxPath, hostPath: b.hostPath, readOnly: true, ...(b.layered ? { layer: path.join(runtime.rootDir, b.sandboxPath) } : {}) });
    }
    mounts.push(...accountBinds(systemDirOf(runtime.rootDir)).map((b) => ({ ...b, readOnly: true, file: true as const })));
  }
  return mounts.sort((a, b) => b.sandboxPath.length - a.sandboxPath.length);
}

function mountHolding(runtime: SandboxRuntime, sandboxPath: string): PathMount | undefined {
  return mountsOf(runtime).find((m) => sandboxPath === m.sandboxPath || sandboxPath.startsWith(`${m.sandboxPath}/`));
}

/**
 * Host path that stands for a normalized sandbox path, for the OS to follow: only where links are
 * the host's anyway (an unisolated sandbox's cwd and HOME). Never for the file API (links.ts).
 */
export function hostPathOf(runtime: SandboxRuntime, sandboxPath: string): string {
  const mount = mountHolding(runtime, sandboxPath);
  if (!mount) return path.join(runtime.rootDir, sandboxPath);
  const rest = sandboxPath.slice(mount.sandboxPath.length);
  if (mount.layer !== undefined && lstatSync(mount.layer + rest, { throwIfNoEntry: false })) return mount.layer + rest;
  return mount.hostPath + rest;
}

/** Joins a child name onto a sandbox directory path. */
export function joinSandbox(dir: string, name: string): string {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
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
