/**
 * Decides the isolation mode (mode.ts) by trying it: the first emulator of a process lays out a
 * throwaway sandbox root and starts real namespaces on it, as every sandbox will, so a host that
 * allows `unshare` but not what follows (mounts in a user namespace, pivot_root) falls back to
 * `none` with the reason instead of failing each sandbox's first command. Then, per data dir, the
 * sandboxes' unprivileged host ids must be able to pass through every dir above their roots.
 */
import { chmodSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { accountBinds, prepareRoot, systemDirOf, systemView, writeAccountFiles } from "./layout";
import { findTools, ID_BASE, type Isolation } from "./mode";
import { SandboxNamespace } from "./namespace";
import type { SetupPlan } from "./setup-script";

let probed: Promise<Isolation> | undefined;

/**
 * The isolation sandboxes under `dataDir` can have. `SANDBOX_EMULATOR_ISOLATION=none` turns it off
 * on purpose (for comparing, or where namespaces misbehave). The trial runs once per process (about
 * 60 ms).
 */
export async function detectIsolation(dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<Isolation> {
  if (env.SANDBOX_EMULATOR_ISOLATION === "none") return { mode: "none", reason: "SANDBOX_EMULATOR_ISOLATION=none" };
  const isolation = await (probed ??= probe());
  if (isolation.mode === "none") return isolation;
  const closed = closedAncestor(dataDir);
  if (closed) return { mode: "none", reason: `the data dir's parent ${closed} is not searchable by other users (the sandboxes' host ids)` };
  return isolation;
}

async function probe(): Promise<Isolation> {
  if (process.platform !== "linux") return { mode: "none", reason: `Linux namespaces are not available on ${process.platform}` };
  if (process.getuid?.() !== 0) {
    return { mode: "none", reason: "mapping a sandbox's users (root and user) into a user namespace needs the emulator to run as root" };
  }
  const tools = findTools();
  if (typeof tools === "string") return { mode: "none", reason: `'${tools}' (util-linux) was not found` };
  const isolation = { mode: "namespaces" as const, idBase: ID_BASE, tools };
  const dir = mkdtempSync(join(tmpdir(), "sandbox-emulator-probe-"));
  try {
    chmodSync(dir, 0o711);
    const closed = closedAncestor(join(dir, "x"));
    if (closed) return { mode: "none", reason: `${closed} is not searchable by other users (the sandboxes' host ids)` };
    const rootDir = join(dir, "sandboxes", "probe");
    prepareRoot(rootDir, isolation, []);
    writeAccountFiles(systemDirOf(rootDir));
    const plan = { rootDir, readOnly: [...systemView().binds, ...accountBinds(systemDirOf(rootDir))], volumes: [] };
    return await trial(isolation, plan).catch(async (err: unknown) => {
      // A host that allows the other namespaces but not a network one (some containers) still
      // isolates the rest: sandboxes then share its network (see ../ports/dial.ts).
      if (!tools.ip) throw err;
      const { ip: _ip, ...withoutNet } = tools;
      return trial({ ...isolation, tools: withoutNet }, plan);
    });
  } catch (err) {
    return { mode: "none", reason: (err as Error).message };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts and stops real namespaces on `plan`; resolves to `isolation` when they worked. */
async function trial(isolation: Isolation & { mode: "namespaces" }, plan: SetupPlan): Promise<Isolation> {
  const ns = await SandboxNamespace.start(isolation, plan);
  await ns.stop();
  return isolation;
}

/** The first dir above `path` (the data dir's parents, up to `/`) that others cannot search. */
function closedAncestor(path: string): string | undefined {
  for (let at = dirname(path); ; at = dirname(at)) {
    const mode = statSync(at, { throwIfNoEntry: false })?.mode;
    if (mode !== undefined && (mode & 0o001) === 0) return at;
    if (at === dirname(at)) return undefined;
  }
}
