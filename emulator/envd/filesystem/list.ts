/**
 * ListDir's walk: the entries under a directory down to `depth` levels, parents before children,
 * names in byte order (Go's WalkDir order). Each level is a dir held open (an overlay's dirs
 * together, the first one's entry winning), and each child dir is opened without following a link,
 * so the walk never leaves the sandbox's tree. Linked directories are not descended into; volume
 * mount points are, being directories in a real sandbox.
 */
import { stat } from "node:fs/promises";
import { Code, ConnectError } from "@connectrpc/connect";
import { FileType } from "../../../sdk/gen/filesystem/filesystem_pb";
import type { Dir } from "../../confined/dir";
import { namesAt, statAt } from "../../confined/ops";
import type { Located } from "../../confined/walk";
import type { SandboxRuntime } from "../../types";
import { sandboxMayRead } from "../host-access";
import { layoutOf, locateIn } from "../links";
import { joinSandbox } from "../paths";
import { entryInfo, type EntryAt, type EntryInit } from "./entry";

/** A dir level being listed: its path as asked, its path in the tree, and its dirs (an overlay's, first wins). */
interface Level {
  asked: string;
  real: string;
  dirs: Dir[];
}

/** Lists `top` (a directory level found by locateDirIn), reporting paths under `asked`. */
export async function listEntries(runtime: SandboxRuntime, top: Located, asked: string, depth: number): Promise<EntryInit[]> {
  const out: EntryInit[] = [];
  await walk(runtime, { asked, real: top.path, dirs: [...top.overlay] }, depth, out, true);
  return out;
}

/** A child being listed: where it was found, and for a mount point the mounted dirs. */
interface Child {
  at: EntryAt;
  overlay?: readonly Dir[];
  close(): Promise<void>;
}

async function walk(runtime: SandboxRuntime, level: Level, depth: number, out: EntryInit[], top = false): Promise<void> {
  const layout = layoutOf(runtime);
  const dirs = await readable(runtime, level, top);
  if (dirs.length === 0) return;
  const names = (await namesAt({ dir: dirs[0]!, overlay: dirs })).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const name of names) {
    const paths = { asked: joinSandbox(level.asked, name), real: joinSandbox(level.real, name) };
    // A mount point is found as the mounted dir itself; any other child in the first dir that has it.
    const child: Child | undefined = layout.mountAt?.(paths.real)
      ? await locateIn(runtime, paths.real).then((l) => ({ at: l, overlay: l.overlay, close: () => l.close() }))
      : await firstHaving(dirs, name, layout.hostLinks === true);
    if (!child) continue; // gone since readdir, as envd skips it
    try {
      const entry = await entryInfo(runtime, child.at, paths.asked).catch((err: unknown) => {
        if (err instanceof ConnectError && err.code === Code.NotFound) return undefined;
        throw err;
      });
      if (!entry) continue;
      out.push(entry);
      if (depth <= 1 || entry.type !== FileType.DIRECTORY || entry.symlinkTarget !== undefined) continue;
      const below = child.overlay ?? (await subDirs(dirs.slice(dirs.indexOf(child.at.dir)), name));
      try {
        await walk(runtime, { ...paths, dirs: [...below] }, depth - 1, out);
      } finally {
        if (!child.overlay) for (const d of below) await d.close();
      }
    } finally {
      await child.close();
    }
  }
}

/**
 * The dirs of a level the sandbox's root may list (../host-access.ts). The dir asked for must be
 * one (else envd's error for a dir it cannot read); a host dir below it that is not is listed as
 * an entry, without its contents.
 */
async function readable(runtime: SandboxRuntime, level: Level, top: boolean): Promise<Dir[]> {
  const out: Dir[] = [];
  for (const dir of level.dirs) {
    const st = await stat(dir.self).catch(() => undefined);
    if (st && sandboxMayRead(runtime, st)) out.push(dir);
  }
  if (out.length === 0 && top) throw new ConnectError(`error reading directory ${level.asked}: open ${level.asked}: permission denied`, Code.Internal);
  return out;
}

/** The entry `name` in the first of `dirs` that has it. */
async function firstHaving(dirs: Dir[], name: string, follow: boolean): Promise<Child | undefined> {
  for (const dir of dirs) {
    const at = { dir, name, follow };
    if (await statAt(at)) return { at, close: async () => undefined };
  }
  return undefined;
}

/** The child dir `name` of each of `dirs` that has one (the first must). */
async function subDirs(dirs: Dir[], name: string): Promise<Dir[]> {
  const out = [await dirs[0]!.sub(name)];
  for (const d of dirs.slice(1)) {
    const sub = await d.sub(name).catch(() => undefined);
    if (sub) out.push(sub);
  }
  return out;
}
