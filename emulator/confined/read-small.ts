/**
 * A small file of a tree read whole where a walk found it (walk.ts): opened without following a
 * link, refused unless a plain file of at most `max` bytes. For the account files the emulator reads
 * in a sandbox or an image, which their owners may have replaced with anything.
 */
import { constants } from "node:fs";
import { openAt } from "./ops";
import type { Located } from "./walk";

/** The file's text; undefined when it is missing, not a plain file, or larger than `max`. */
export async function readSmallFile(finding: Promise<Located>, max: number): Promise<string | undefined> {
  const at = await finding.catch(() => undefined);
  if (!at) return undefined;
  try {
    const handle = await openAt({ dir: at.dir, name: at.name, follow: false }, constants.O_RDONLY).catch(() => undefined);
    if (!handle) return undefined;
    try {
      const info = await handle.stat();
      return info.isFile() && info.size <= max ? await handle.readFile("utf8") : undefined;
    } finally {
      await handle.close();
    }
  } finally {
    await at.close();
  }
}
