/**
 * Where a sandbox path is on the host, links followed the way the sandbox sees them. The file API
 * runs on the host as the emulator's user (root, with namespaces), so letting the OS follow a link
 * a sandbox command made would read or write the HOST's files: `ln -s /etc /home/user/etc` then
 * `files.write("/home/user/etc/x")`. With namespaces a path is therefore walked in the sandbox's
 * own tree (../confined/walk.ts): an absolute target from the sandbox's `/`, `..` stopping there,
 * as the kernel does at a root; mounts (volumes, the read-only system dirs with the template's files
 * over them, the account files) are entered as the walk reaches them; each step holds its dir open,
 * so a link swapped in meanwhile is refused, not followed.
 *
 * Without isolation, commands reach the host anyway, and the emulator's own volume links point at
 * host paths, so the OS follows links as before (`hostLinks`).
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { locate, locateDir, type Layout, type LocateOptions, type Located, type Mount } from "../confined/walk";
import type { SandboxRuntime } from "../types";
import { mountsOf } from "./paths";
import { viewPids } from "./view-pids";

const layouts = new WeakMap<SandboxRuntime, Layout>();

/** The sandbox's tree: its root dir and what is mounted in it (taken once per runtime). */
export function layoutOf(runtime: SandboxRuntime): Layout {
  let layout = layouts.get(runtime);
  if (layout) return layout;
  const pid = runtime.imageDir === undefined ? undefined : viewPids.get(runtime.sandboxID);
  if (pid !== undefined) {
    // The kernel's own view of the sandbox: its overlay, volumes and devices are all mounted there.
    layout = { root: `/proc/${pid}/root` };
    layouts.set(runtime, layout);
    return layout;
  }
  const mounts = new Map<string, Mount>();
  for (const m of mountsOf(runtime)) {
    mounts.set(m.sandboxPath, m.file ? { file: m.hostPath, readOnly: m.readOnly } : { dirs: m.layer ? [m.layer, m.hostPath] : [m.hostPath], readOnly: m.readOnly });
  }
  layout = { root: runtime.rootDir, mountAt: (p) => mounts.get(p), hostLinks: runtime.isolation.mode !== "namespaces" };
  layouts.set(runtime, layout);
  return layout;
}

/** Finds a sandbox path (normalized, absolute) in the sandbox's tree; close the answer after use. */
export function locateIn(runtime: SandboxRuntime, sandboxPath: string, options: LocateOptions = {}): Promise<Located> {
  return locate(layoutOf(runtime), sandboxPath, options).catch(rethrow);
}

/** Finds a directory of the sandbox (links followed), with the dirs of an overlay there. */
export function locateDirIn(runtime: SandboxRuntime, sandboxPath: string, options: Omit<LocateOptions, "followLast"> = {}): Promise<Located> {
  return locateDir(layoutOf(runtime), sandboxPath, options).catch(rethrow);
}

/** Runs `use` on a located path and closes it after. */
export async function using<T>(finding: Promise<Located>, use: (at: Located) => Promise<T>): Promise<T> {
  const at = await finding;
  try {
    return await use(at);
  } finally {
    await at.close();
  }
}

/** A loop of links is the caller's mistake, as envd's lstat would say; other errors pass as they are. */
function rethrow(err: NodeJS.ErrnoException): never {
  if (err.code === "ELOOP") throw new ConnectError(`too many levels of symbolic links: ${err.message.replace(/^ELOOP: /, "")}`, Code.InvalidArgument);
  throw err;
}
