/**
 * What the file API may read of the host's own files. With namespaces, a sandbox sees the host's
 * system dirs read-only (isolation/layout.ts), and even its root is an unprivileged id on the host,
 * so a host file is "other" to every sandbox user: `cat /etc/shadow` fails in the sandbox. envd
 * runs as the sandbox's root, but the emulator's file API runs as the host's root, so it reads
 * only what that "other" may: a file owned by an id outside the sandbox's map needs its world-read
 * bit. The sandbox's own files (its ids, its root dir, its volumes) are read as envd would, freely.
 */
import type { BigIntStats, Stats } from "node:fs";
import { ID_COUNT } from "./isolation/mode";
import type { SandboxRuntime } from "../types";

/** Whether the sandbox's root could read the file or list the dir with these stats. */
export function sandboxMayRead(runtime: SandboxRuntime, st: Stats | BigIntStats): boolean {
  if (runtime.isolation.mode !== "namespaces") return true;
  const uid = Number(st.uid);
  const base = runtime.isolation.idBase;
  if (uid >= base && uid < base + ID_COUNT) return true;
  return (Number(st.mode) & 0o004) !== 0;
}
