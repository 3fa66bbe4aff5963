/**
 * What the file API makes belongs to the calling user, as when envd writes as that user: with
 * namespaces, the emulator (host root) hands each new file and directory to the user's mapped host
 * id, so the sandbox's own commands can change them. Without namespaces everything is the
 * emulator's user's already. Owners are set on the entry itself (lchown, or fchown of an open
 * file), never through a link a sandbox could have put there.
 */
import type { FileHandle } from "node:fs/promises";
import type { Dir } from "../confined/dir";
import { chownAt, mkdirAt } from "../confined/ops";
import type { Located } from "../confined/walk";
import { hostOwnerOf, type RequestScope } from "./scope";

/** mkdir of `name` in `dir` (walk.ts's `makeParent`, and MakeDir's last dir), belonging to the calling user; something already there is left alone. */
export function makeDirAs(scope: RequestScope): (dir: Dir, name: string) => Promise<void> {
  return async (dir, name) => {
    const at = { dir, name, follow: false };
    const made = await mkdirAt(at).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code !== "EEXIST") throw err;
        return false;
      },
    );
    const owner = hostOwnerOf(scope);
    if (made && owner !== undefined) await chownAt(at, owner, owner);
  };
}

/** Gives a file the calling user just made to that user. */
export async function giveTo(scope: RequestScope, file: FileHandle | Pick<Located, "dir" | "name" | "follow">): Promise<void> {
  const owner = hostOwnerOf(scope);
  if (owner === undefined) return;
  await ("fd" in file ? file.chown(owner, owner) : chownAt(file, owner, owner));
}
