/**
 * What one sandbox may use, so a runaway command slows only itself: how many processes its users
 * may run at once, and how large a file may grow (a command's writes, and uploads through
 * `/files`). Applied to each command with util-linux `prlimit` (RLIMIT_NPROC, which the kernel
 * counts per user namespace, i.e. per sandbox; RLIMIT_FSIZE), and checked by the API itself.
 * Memory and CPU are not limited.
 */
import { accessSync, constants } from "node:fs";

export interface SandboxLimits {
  /** Processes a sandbox's user may run at once (fork fails beyond: "Resource temporarily unavailable"). Default 1024. */
  processes: number;
  /** Largest file a command may write or `/files` may upload, in bytes. Default 1 GiB. */
  fileSizeBytes: number;
}

export const DEFAULT_LIMITS: SandboxLimits = { processes: 1024, fileSizeBytes: 1024 ** 3 };

/** The limits with defaults; throws on a value that is not a positive integer. */
export function resolveLimits(given: Partial<SandboxLimits> = {}): SandboxLimits {
  const limits = { ...DEFAULT_LIMITS, ...given };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`limits.${name} must be a positive integer, got ${value}`);
  }
  return limits;
}

const found = new Map<string, string | null>();

/** A util-linux tool's path, or null where it is missing (not Linux). */
function tool(name: string): string | null {
  if (found.has(name)) return found.get(name)!;
  let at: string | null = null;
  for (const dir of ["/usr/bin", "/bin"]) {
    try {
      accessSync(`${dir}/${name}`, constants.X_OK);
      at = `${dir}/${name}`;
      break;
    } catch {
      // not here
    }
  }
  found.set(name, at);
  return at;
}

/**
 * Without namespaces, the argv prefix that has the kernel kill the command if the emulator dies
 * (a parent-death signal; the command's own children are not covered). With namespaces the
 * sandbox's init does this for the whole sandbox.
 */
export function orphanGuardArgv(): string[] {
  const setpriv = tool("setpriv");
  return setpriv ? [setpriv, "--pdeathsig", "KILL", "--"] : [];
}

/**
 * The argv prefix that runs a command under the limits (empty where `prlimit` is missing). The
 * process count is only limited inside a sandbox's own user namespace: on the host it would count
 * every process of the emulator's user.
 */
export function limitArgv(limits: SandboxLimits, isolated: boolean): string[] {
  const prlimit = tool("prlimit");
  if (!prlimit) return [];
  const nproc = isolated ? [`--nproc=${limits.processes}`] : [];
  return [prlimit, ...nproc, `--fsize=${limits.fileSizeBytes}`, "--"];
}
