/**
 * A host directory held open, and the names in it. The emulator acts on files for sandboxes and
 * volume tokens with its own rights (root, where it isolates sandboxes), so a path those callers
 * aim is never handed to the OS whole: each link on it would be followed on the host. Instead a
 * path is walked one component at a time from a directory the emulator trusts, each opened with
 * O_NOFOLLOW, and the last step names its entry relative to the open directory
 * (`/proc/self/fd/<fd>/<name>`, standing for the *at() calls Node lacks). A link swapped in after
 * a check then makes the next open fail rather than be followed.
 *
 * Where /proc/self/fd is missing (not Linux), the same calls fall back to plain paths: links met
 * are still refused, but a swap between two steps is not caught.
 */
import { constants, existsSync } from "node:fs";
import { lstat, open, stat, type FileHandle } from "node:fs/promises";
import { join } from "node:path";

const PROC_FD = "/proc/self/fd";
/** Whether an open fd can be named as a path, which is what makes each step race-free. */
export const VIA_FD = process.platform === "linux" && existsSync(PROC_FD);
/** Linux's O_PATH (the same value on x86-64 and arm64), which Node does not export: a handle that names a file without opening its content. */
export const O_PATH = VIA_FD ? 0o10000000 : 0;

/** An Error with an errno-style `code`, naming a path of the tree (never the host's). */
/**
 * A path `at` gave (an fd path of this process) as another process must name it: through this
 * process's own /proc entry, since `/proc/self` in a helper is the helper's.
 */
export function forHelper(osPath: string): string {
  return osPath.startsWith("/proc/self/") ? `/proc/${process.pid}/${osPath.slice("/proc/self/".length)}` : osPath;
}

export function errnoError(code: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${path}`), { code });
}

/** One path component: a name in a directory. "." stands for the directory itself. */
function checkName(name: string): void {
  if (name === "" || name === ".." || name.includes("/") || name.includes("\0")) throw errnoError("EINVAL", name);
}

export class Dir {
  private constructor(
    private readonly handle: FileHandle | undefined,
    /** The host path it was reached by, for messages and for unisolated sandboxes' host-side reads. */
    readonly hostPath: string,
  ) {}

  /** Opens a directory the emulator made (a volume's or a sandbox's root): links on its own path are the emulator's, so they are followed. */
  static async trusted(hostPath: string): Promise<Dir> {
    if (!VIA_FD) {
      if (!(await lstat(hostPath).then((s) => s.isDirectory() || s.isSymbolicLink()))) throw errnoError("ENOTDIR", hostPath);
      return new Dir(undefined, hostPath);
    }
    return new Dir(await open(hostPath, O_PATH | constants.O_DIRECTORY), hostPath);
  }

  /** The directory itself, as a path for the OS. */
  get self(): string {
    return this.handle ? `${PROC_FD}/${this.handle.fd}` : this.hostPath;
  }

  /**
   * Names `name` in this directory for the OS without resolving the directory again. "." names
   * the directory as `<self>/.`, so that calls which do not follow a last link (lstat, lchown)
   * act on the directory rather than on /proc's link to it.
   */
  at(name: string): string {
    if (name !== ".") checkName(name);
    return `${this.self}/${name}`;
  }

  /**
   * Opens the child directory `name`. A link there fails (ELOOP or ENOTDIR) unless `follow`, which
   * only unisolated sandboxes use: their commands reach the host anyway.
   */
  async sub(name: string, follow = false): Promise<Dir> {
    checkName(name);
    const hostPath = join(this.hostPath, name);
    if (!VIA_FD) {
      const st = await (follow ? stat : lstat)(this.at(name));
      if (st.isSymbolicLink()) throw errnoError("ELOOP", hostPath);
      if (!st.isDirectory()) throw errnoError("ENOTDIR", hostPath);
      return new Dir(undefined, hostPath);
    }
    const flags = O_PATH | constants.O_DIRECTORY | (follow ? 0 : constants.O_NOFOLLOW);
    return new Dir(await open(this.at(name), flags), hostPath);
  }

  async close(): Promise<void> {
    await this.handle?.close();
  }
}
