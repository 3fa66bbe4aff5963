/**
 * Symlinks followed the way the sandbox sees them. The file API runs on the host as the emulator's
 * user (root, with namespaces), so letting the OS follow a link a sandbox command made would read
 * or write the HOST's files: `ln -s /etc /home/user/etc` then `files.write("/home/user/etc/x")`.
 * With namespaces, every link on a path is therefore read here and its target taken as a SANDBOX
 * path (absolute targets from the sandbox's `/`, `..` stopping at it, as the kernel does at a
 * root), and the host path is only formed from the final sandbox path.
 *
 * Without isolation, commands reach the host anyway, and the emulator's own volume links point at
 * host paths, so the OS follows links as before.
 */
import { lstat, readlink } from "node:fs/promises";
import { Code, ConnectError } from "@connectrpc/connect";
import type { SandboxRuntime } from "../types";
import { hostPathOf } from "./paths";

/** Linux's limit on links followed in one lookup. */
const MAX_LINKS = 40;

function segments(p: string): string[] {
  return p.split("/").filter((s) => s !== "" && s !== ".");
}

/**
 * The sandbox path `sandboxPath` (normalized, absolute) names once its links are followed in
 * sandbox space; the last segment is followed only when `followLast`. Segments that do not exist
 * are kept as they are.
 */
export async function followLinks(runtime: SandboxRuntime, sandboxPath: string, followLast: boolean): Promise<string> {
  if (runtime.isolation.mode !== "namespaces") return sandboxPath;
  let done: string[] = [];
  let rest = segments(sandboxPath);
  let hops = 0;
  while (rest.length > 0) {
    const name = rest.shift()!;
    if (name === "..") {
      done.pop();
      continue;
    }
    const candidate = [...done, name];
    if (rest.length === 0 && !followLast) return `/${candidate.join("/")}`;
    const host = hostPathOf(runtime, `/${candidate.join("/")}`);
    const st = await lstat(host).catch(() => undefined);
    if (!st?.isSymbolicLink()) {
      done = candidate;
      continue;
    }
    if (++hops > MAX_LINKS) {
      throw new ConnectError(`too many levels of symbolic links: /${candidate.join("/")}`, Code.InvalidArgument);
    }
    const target = await readlink(host);
    if (target.startsWith("/")) done = [];
    rest = [...segments(target), ...rest];
  }
  return `/${done.join("/")}`;
}
