/**
 * The ports a running sandbox listens on, as the page lists them with their links. The emulator's
 * proxy only learns of a port when a request names it, so the page asks the host's kernel: the
 * sandbox's processes are those whose `/` or cwd lies in its root dir (a namespaced sandbox's `/`
 * is that dir, an unisolated one's cwd is), and their listening TCP sockets are the ports. Linux
 * only; elsewhere, and for a process the emulator may not inspect, no port is listed.
 */
import { readdir, readFile, readlink } from "node:fs/promises";

/** TCP state LISTEN in /proc/net/tcp. */
const LISTEN = "0A";

/** Listening ports of the processes under `rootDir`, sorted, without duplicates. */
export async function listeningPorts(rootDir: string): Promise<number[]> {
  const pids = await sandboxPids(rootDir);
  const ports = new Set<number>();
  for (const pid of pids) {
    const inodes = await socketInodes(pid);
    if (inodes.size === 0) continue;
    for (const table of ["tcp", "tcp6"]) {
      for (const port of await listening(`/proc/${pid}/net/${table}`, inodes)) ports.add(port);
    }
  }
  return [...ports].sort((a, b) => a - b);
}

async function sandboxPids(rootDir: string): Promise<string[]> {
  const names = await readdir("/proc").catch(() => [] as string[]);
  const inside = (target: string) => target === rootDir || target.startsWith(`${rootDir}/`);
  const found: string[] = [];
  for (const pid of names.filter((n) => /^\d+$/.test(n))) {
    const root = await readlink(`/proc/${pid}/root`).catch(() => "");
    const cwd = root === "/" ? await readlink(`/proc/${pid}/cwd`).catch(() => "") : "";
    if (inside(root) || inside(cwd)) found.push(pid);
  }
  return found;
}

async function socketInodes(pid: string): Promise<Set<string>> {
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  const inodes = new Set<string>();
  for (const fd of fds) {
    const m = /^socket:\[(\d+)\]$/.exec(await readlink(`/proc/${pid}/fd/${fd}`).catch(() => ""));
    if (m) inodes.add(m[1]!);
  }
  return inodes;
}

/** Lines of /proc/net/tcp: `sl local_address rem_address st ... uid timeout inode`. */
async function listening(table: string, inodes: Set<string>): Promise<number[]> {
  const text = await readFile(table, "utf8").catch(() => "");
  return text.split("\n").slice(1).flatMap((line) => {
    const cols = line.trim().split(/\s+/);
    if (cols[3] !== LISTEN || !inodes.has(cols[9] ?? "")) return [];
    return [parseInt(cols[1]!.split(":")[1]!, 16)];
  });
}
