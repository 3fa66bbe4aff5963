/**
 * The ports a running sandbox listens on, as the page lists them with their links. The emulator's
 * proxy only learns of a port when a request names it, so the page asks the host's kernel: a
 * namespaced sandbox (../envd/isolation) is the child of the `unshare` whose setup names its root
 * dir, and that child's /proc/<pid>/net/tcp is the sandbox's own network, so every LISTEN socket
 * there is a port of the sandbox. An unisolated sandbox shares the host's network, where no socket
 * is the sandbox's alone: it lists none (nor does any system but Linux).
 */
import { readdir, readFile } from "node:fs/promises";

/** TCP state LISTEN in /proc/net/tcp. */
const LISTEN = "0A";

/** Listening ports of the sandbox whose root dir is `rootDir`, sorted, without duplicates. */
export async function listeningPorts(rootDir: string): Promise<number[]> {
  const init = await namespaceInit(rootDir);
  if (init === undefined) return [];
  const ports = new Set<number>();
  for (const table of ["tcp", "tcp6"]) for (const port of await listening(`/proc/${init}/net/${table}`)) ports.add(port);
  return [...ports].sort((a, b) => a - b);
}

/** The pid of the sandbox's init: the one child of the `unshare` that set up its root. */
async function namespaceInit(rootDir: string): Promise<string | undefined> {
  for (const pid of (await readdir("/proc").catch(() => [] as string[])).filter((n) => /^\d+$/.test(n))) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (!cmdline.startsWith("/usr/bin/unshare\0") && !cmdline.startsWith("unshare\0")) continue;
    if (!cmdline.includes(`'${rootDir}/`) && !cmdline.includes(`'${rootDir}'`)) continue;
    const children = await readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => "");
    return children.trim().split(/\s+/)[0] || undefined;
  }
  return undefined;
}

/** Lines of /proc/net/tcp: `sl local_address rem_address st ...`, the port in hex after the colon. */
async function listening(table: string): Promise<number[]> {
  const text = await readFile(table, "utf8").catch(() => "");
  return text.split("\n").slice(1).flatMap((line) => {
    const cols = line.trim().split(/\s+/);
    return cols[3] === LISTEN ? [parseInt(cols[1]!.split(":")[1]!, 16)] : [];
  });
}
