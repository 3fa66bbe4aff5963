/**
 * The `user.e2b.*` extended attributes of files, where envd keeps file metadata
 * (docs/service.md#file-metadata). Node has no xattr calls and the emulator takes no native
 * module, so one long-lived `python3` (its `os.listxattr`/`getxattr`/`setxattr`, in the standard
 * library) answers them, a JSON line per request, in order: a round trip costs tens of
 * microseconds, not a process start. It is started at the first call; where there is no python3,
 * or it dies, or the filesystem refuses user xattrs, every call answers `undefined` and the
 * caller keeps metadata itself (./file-metadata.ts).
 *
 * Paths are the emulator's own fd paths (`/proc/self/fd/<fd>/<name>`, ../confined/dir.ts): they
 * are rewritten to name this process, so the helper reaches exactly the file the emulator found.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { forHelper } from "../confined/dir";
/** Keys without the `user.e2b.` namespace, and their values. */
type FileMetadata = Record<string, string>;

/** Reads or replaces the `user.e2b.*` attributes of one path, following a last link only when asked. */
const HELPER = `
import json, os, sys
P = "user.e2b."
for line in sys.stdin:
    try:
        q = json.loads(line)
        p, f = q["path"], q["follow"]
        names = [n for n in os.listxattr(p, follow_symlinks=f) if n.startswith(P)]
        if "set" in q:
            for n in names:
                os.removexattr(p, n, follow_symlinks=f)
            for k, v in q["set"].items():
                os.setxattr(p, P + k, v.encode("latin-1"), follow_symlinks=f)
            out = {"ok": {}}
        else:
            out = {"ok": {n[len(P):]: os.getxattr(p, n, follow_symlinks=f).decode("latin-1") for n in names}}
    except Exception as e:
        out = {"err": getattr(e, "errno", None) or str(e)}
    sys.stdout.write(json.dumps(out) + "\\n")
    sys.stdout.flush()
`;

type Answer = { ok?: FileMetadata; err?: unknown };

class XattrHelper {
  private child: ChildProcessWithoutNullStreams | undefined;
  private broken = false;
  private readonly waiting: ((answer: Answer | undefined) => void)[] = [];

  /** The file's `user.e2b.*` attributes, keys without the namespace; undefined when unreadable. */
  async read(osPath: string, follow: boolean): Promise<FileMetadata | undefined> {
    return (await this.ask({ path: forHelper(osPath), follow }))?.ok;
  }

  /** Replaces them (none clears them); false when the filesystem or the helper refused. */
  async write(osPath: string, metadata: FileMetadata | undefined, follow: boolean): Promise<boolean> {
    return (await this.ask({ path: forHelper(osPath), follow, set: metadata ?? {} }))?.ok !== undefined;
  }

  private ask(request: { path: string; follow: boolean; set?: FileMetadata }): Promise<Answer | undefined> {
    // No name for the OS (no /proc/self/fd here): the caller keeps the metadata itself.
    const child = request.path === "" ? undefined : this.started();
    if (!child) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      child.stdin.write(`${JSON.stringify(request)}\n`);
    });
  }

  private started(): ChildProcessWithoutNullStreams | undefined {
    if (this.broken) return undefined;
    if (this.child) return this.child;
    const child = spawn("python3", ["-c", HELPER], { stdio: ["pipe", "pipe", "pipe"] });
    // The helper must never keep the emulator alive, nor be waited for at its exit.
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
    child.stdin.on("error", () => this.fail());
    child.on("error", () => this.fail());
    child.on("exit", () => this.fail());
    createInterface({ input: child.stdout }).on("line", (line) => {
      let answer: Answer | undefined;
      try {
        answer = JSON.parse(line) as Answer;
      } catch {
        answer = undefined;
      }
      this.waiting.shift()?.(answer);
    });
    this.child = child;
    return child;
  }

  /** No helper from now on: what waits gets no answer, and the callers fall back. */
  private fail(): void {
    this.broken = true;
    this.child = undefined;
    for (const resolve of this.waiting.splice(0)) resolve(undefined);
  }
}

export const xattrs = new XattrHelper();
