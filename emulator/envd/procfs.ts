/**
 * `/proc` for the file API's downloads. A sandbox's `/proc` is not in its root dir: with namespaces
 * it is the proc filesystem mounted for the sandbox's own PID namespace (isolation/setup-script.ts),
 * and without isolation commands see the host's. envd reads it like any path, so `files.read(
 * "/proc/sys/kernel/random/boot_id")` answers what `cat` prints.
 *
 * With namespaces the file is read by `cat` run inside the sandbox as its root (the user envd runs
 * as): reading it from the host through `/proc/<init>/root/proc` would let the host's kernel follow
 * links there (`/proc/1/cwd/<a link a command made>`) to the host's files. Without isolation the
 * host's `/proc` is read directly, as the sandbox's commands see it.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { resolveSandboxPath } from "./paths";
import type { RequestScope } from "./scope";

/** The sandbox path a request names when it lies in `/proc`; undefined otherwise (or when it is no valid path). */
export function procPathOf(requested: string, home: string): string | undefined {
  let sandboxPath: string;
  try {
    sandboxPath = resolveSandboxPath(requested, home);
  } catch {
    return undefined; // the ordinary lookup answers a bad path
  }
  return sandboxPath === "/proc" || sandboxPath.startsWith("/proc/") ? sandboxPath : undefined;
}

/** Why a `/proc` read failed, as the file API answers it. */
export class ProcReadError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The bytes of a `/proc` file (they are generated on read, and their size is reported as 0, so
 * they are read whole; at most `max` bytes). 404 when missing, 400 for a directory.
 */
export async function readProcFile(scope: RequestScope, sandboxPath: string, max: number): Promise<Buffer> {
  const namespace = scope.namespace();
  if (!namespace) {
    return readFile(sandboxPath).catch((err: NodeJS.ErrnoException) => {
      throw failure(sandboxPath, err.code ?? err.message);
    });
  }
  const launch = (await namespace).launch(0, "/", ["cat", "--", sandboxPath]);
  const child = spawn(launch.file, launch.args, { stdio: ["ignore", "pipe", "pipe"] });
  const out: Buffer[] = [];
  let size = 0;
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > max) child.kill("SIGKILL");
    else out.push(chunk);
  });
  child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString("utf8")));
  const code = await new Promise<number | null>((resolve, reject) => child.once("error", reject).once("close", resolve));
  if (size > max) throw new ProcReadError(507, `error reading file '${sandboxPath}': larger than the sandbox's file size limit (${max} bytes)`);
  if (code !== 0) throw failure(sandboxPath, /No such file/.test(stderr) ? "ENOENT" : /Is a directory/.test(stderr) ? "EISDIR" : stderr.trim());
  return Buffer.concat(out);
}

/** envd's answers for what `cat` or the read met. */
function failure(sandboxPath: string, reason: string): ProcReadError {
  if (reason === "ENOENT" || reason === "ENOTDIR") return new ProcReadError(404, `path '${sandboxPath}' does not exist`);
  if (reason === "EISDIR") return new ProcReadError(400, `path '${sandboxPath}' is a directory`);
  return new ProcReadError(500, `error opening file '${sandboxPath}': ${reason}`);
}
