/**
 * envd's files under `/run/e2b`: `.E2B_SANDBOX` (0444), `.E2B_SANDBOX_ID` and `.E2B_TEMPLATE_ID`,
 * each holding the value of the variable of its name with no newline, owned by root (infra:
 * packages/envd/main.go, internal/host/mmds.go: envd writes them at its start and again once it knows
 * the sandbox, so a fork or a snapshot's sandbox holds its own ID, not its parent's). The emulator
 * writes them before the first in-sandbox call a sandbox's start answers (./sandboxes.ts), in its
 * tree, through the confined walk: a fork's copy may hold links its parent's commands planted.
 * A volume over `/run/e2b` (one at `/` included) is left alone: the service's `/run` is not the
 * disk, and our bookkeeping never lands in a user's volume.
 */
import { constants } from "node:fs";
import type { Dir } from "../confined/dir";
import { chownAt, mkdirAt, openAt, removeAt } from "../confined/ops";
import type { SandboxRuntime } from "../types";
import { hostId } from "./isolation/layout";
import { locateIn, using } from "./links";
import { envdVariables } from "./sandbox-env";

/** Where envd keeps them (mmds.go, E2BRunDir). */
export const RUN_DIR = "/run/e2b";

/** The files: name in RUN_DIR, content, mode (main.go writes `.E2B_SANDBOX` read-only). */
function runFiles(runtime: SandboxRuntime): [string, string, number][] {
  const vars = envdVariables(runtime);
  return [
    [".E2B_SANDBOX", vars.E2B_SANDBOX!, 0o444],
    [".E2B_SANDBOX_ID", vars.E2B_SANDBOX_ID!, 0o644],
    [".E2B_TEMPLATE_ID", vars.E2B_TEMPLATE_ID!, 0o644],
  ];
}

/**
 * Writes the files; never fails: envd only reports a file it could not write (on stderr) and goes
 * on, and so does a sandbox whose `/run` its commands made unwritable.
 */
export async function writeRunFiles(runtime: SandboxRuntime): Promise<void> {
  if (runtime.volumeMounts.some((m) => m.path === "/" || RUN_DIR === m.path || RUN_DIR.startsWith(`${m.path}/`))) return;
  const owner = hostId(runtime.isolation, 0);
  const makeParent = async (dir: Dir, name: string) => {
    const at = { dir, name, follow: false };
    await mkdirAt(at, 0o755);
    if (owner !== undefined) await chownAt(at, owner, owner);
  };
  for (const [name, content, mode] of runFiles(runtime)) {
    await using(locateIn(runtime, `${RUN_DIR}/${name}`, { makeParent }), async (at) => {
      if (at.readOnly) return;
      // Made anew: a copied `.E2B_SANDBOX` is read-only, and what is there may be a planted link.
      await removeAt(at);
      const file = await openAt(at, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
      try {
        await file.writeFile(content);
        await file.chmod(mode);
        if (owner !== undefined) await file.chown(owner, owner);
      } finally {
        await file.close();
      }
    }).catch(() => undefined);
  }
}
