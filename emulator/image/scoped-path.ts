/**
 * Where a layer entry lands in the tree being unpacked. The tree is the image's root, so a symlink
 * met on the way is followed as the image would see it: relative to its own directory, an absolute
 * target from the tree's root, `..` stopping at the root. Nothing a layer holds can therefore name a
 * place outside the tree, whatever links earlier entries made; the last component is never followed,
 * so an entry replaces a link rather than writing through it.
 */
import { lstat, mkdir, readlink } from "node:fs/promises";
import { join } from "node:path";

/** Links followed on one path before it is refused as a loop (Linux's own bound). */
const MAX_LINKS = 40;

/**
 * An entry's path as written, checked: relative, no `..`. `""` is the root itself.
 * @throws Error naming the entry when it is absolute or climbs.
 */
export function entryPath(path: string): string {
  if (path.startsWith("/")) throw new Error(`entry '${path}' is an absolute path`);
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) throw new Error(`entry '${path}' climbs out with '..'`);
  return parts.join("/");
}

/**
 * The real directory holding `rel`'s last component, inside `root`, and that component.
 * Missing directories on the way are made (0755, as docker makes them) when `create`.
 * @throws Error when a component on the way is a file, is missing (and not `create`), or links loop.
 */
export async function placeIn(root: string, rel: string, create: boolean): Promise<{ dir: string; name: string }> {
  const parts = rel.split("/").filter((p) => p !== "" && p !== ".");
  const name = parts.pop() ?? "";
  const resolved: string[] = [];
  let links = 0;
  for (const queue = parts; queue.length > 0; ) {
    const part = queue.shift()!;
    if (part === "..") {
      resolved.pop();
      continue;
    }
    const full = join(root, ...resolved, part);
    const info = await lstat(full).catch(() => undefined);
    if (!info) {
      if (!create) throw new Error(`'${rel}': '${[...resolved, part].join("/")}' does not exist`);
      await mkdir(full, { mode: 0o755 });
      resolved.push(part);
    } else if (info.isSymbolicLink()) {
      if (++links > MAX_LINKS) throw new Error(`'${rel}': more than ${MAX_LINKS} symlinks on the way (a loop?)`);
      const target = await readlink(full);
      if (target.startsWith("/")) resolved.length = 0;
      queue.unshift(...target.split("/").filter((p) => p !== "" && p !== "."));
    } else if (info.isDirectory()) {
      resolved.push(part);
    } else {
      throw new Error(`'${rel}': '${[...resolved, part].join("/")}' is not a directory`);
    }
  }
  return { dir: join(root, ...resolved), name };
}
