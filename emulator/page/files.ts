/**
 * The page's file browser: one path of a tree (a volume's content, a sandbox's `/`) either listed
 * (a directory's children) or read (a file's first bytes, as text). The walk is the volume content
 * API's (../confined/walk.ts): every link is followed inside the tree, none can leave it, so a link a
 * sandbox made to the host's `/etc` reads the sandbox's own `/etc`, never the host's.
 */
import { constants } from "node:fs";
import { openAt } from "../confined/ops";
import { locate, type Layout, type Located } from "../confined/walk";
import { ApiError } from "../http";
import { asApiError, entryOf, entryStat, listDir, requestedPath } from "../volume-content/entries";

/** Bytes of a file the page shows: enough to read a log or a config, never a whole disk image. */
export const MAX_SHOWN_BYTES = 256 * 1024;

/** A directory's listing or a file's text, as the page's file view takes it. */
export type FileView =
  | { type: "directory"; path: string; entries: { name: string; path: string; type: unknown; size: unknown }[] }
  | { type: "file"; path: string; size: number; text: string; truncated: boolean };

/** Lists or reads `rawPath` of the tree laid out by `layout`. */
export async function viewPath(layout: Layout, rawPath: string | null): Promise<FileView> {
  const path = requestedPath(rawPath ?? "/");
  const found = await locate(layout, path, { followLast: true }).catch((err: NodeJS.ErrnoException) => {
    throw asApiError(err, path);
  });
  try {
    const stat = await entryStat(entryOf(found, undefined));
    if (stat.type === "directory") return { type: "directory", path: found.path, entries: (await listDir(found, undefined, 1)).map(entry) };
    if (stat.type !== "file") throw new ApiError(400, `path '${path}' is neither a file nor a directory`);
    return await readText(found);
  } catch (err) {
    throw asApiError(err as NodeJS.ErrnoException, path);
  } finally {
    await found.close();
  }
}

function entry(stat: Record<string, unknown>) {
  return { name: String(stat.name), path: String(stat.path), type: stat.type, size: stat.size };
}

async function readText(found: Located): Promise<FileView> {
  // O_NONBLOCK: what is opened may have become a FIFO since, which must not hang the request.
  const handle = await openAt(found, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.alloc(Math.min(size, MAX_SHOWN_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { type: "file", path: found.path, size, text: buffer.subarray(0, bytesRead).toString("utf8"), truncated: size > bytesRead };
  } finally {
    await handle.close();
  }
}
