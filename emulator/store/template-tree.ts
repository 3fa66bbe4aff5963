/**
 * What a v2 template build produces: a file tree (the files its COPY/ADD steps placed, with their
 * modes and owners) and the sandbox defaults its ENV, WORKDIR and USER steps set. Every sandbox
 * started from the build gets the tree written into its root (template-fill.ts) and the env as its
 * environment. A tree holds only what the steps added: the image's own files (when the build pulled
 * it) stay in the image's dir, under every sandbox's own (image-roots.ts).
 */
import { posix } from "node:path";
import type { TarMember } from "./tar-read";

/**
 * One path of a template's tree. A `whiteout` is a path of the image a RUN step removed: an
 * overlay's mark (a 0/0 character device) in every sandbox's upper dir hides the image's file there.
 */
export interface TreeNode {
  type: "file" | "dir" | "symlink" | "whiteout";
  /** Permission bits. */
  mode: number;
  /** The user the files belong to in the sandbox (`--chown`, else the build's user then). */
  owner: string;
  data?: Buffer;
  linkname?: string;
}

/** The image a build pulled (image-roots.ts): its files lie under every sandbox's own, read-only. */
export interface ResultImage {
  reference: string;
  digest: string;
  /** Host dir of its unpacked, provisioned files. */
  dir: string;
}

/**
 * A finished build's result. `tree` is keyed by absolute sandbox path. With `image`, the tree holds
 * what the steps added over the image's files; without, over the host's system dirs.
 */
export interface TemplateResult {
  tree: Map<string, TreeNode>;
  image?: ResultImage | undefined;
  env: Record<string, string>;
  workdir: string;
  user: string;
}

/** The service's defaults before any step: user `user` in `/home/user` (docs/service.md#build-steps). */
export function emptyResult(): TemplateResult {
  return { tree: new Map(), env: {}, workdir: "/home/user", user: "user" };
}

/** A copy that later steps can change without touching `from` (a base template's result). */
export function cloneResult(from: TemplateResult): TemplateResult {
  const tree = new Map([...from.tree].map(([k, v]) => [k, { ...v }]));
  return { tree, ...(from.image ? { image: { ...from.image } } : {}), env: { ...from.env }, workdir: from.workdir, user: from.user };
}

/** `path` made absolute against `cwd` and normalised. */
export function sandboxPath(path: string, cwd: string): string {
  return posix.normalize(path.startsWith("/") ? path : posix.join(cwd, path)).replace(/(.)\/+$/, "$1");
}

/**
 * Directories the base image already has, with their owners: a COPY into `/home/user/app` as root
 * makes `app` root's, and leaves the home directory the sandbox user's, as Docker does over the
 * service's base image (where every sandbox user writes its home).
 */
const BASE_DIRS: ReadonlyMap<string, string> = new Map([["/home", "root"], ["/home/user", "user"]]);

/** Creates `dir` and its missing parents in the tree. */
export function ensureDir(tree: Map<string, TreeNode>, dir: string, owner: string): void {
  if (dir === "/") return;
  ensureDir(tree, posix.dirname(dir), owner);
  // A dir made where a RUN step removed the image's one is a new dir (its old files stay hidden only in part: no opaque mark).
  if (!tree.has(dir) || tree.get(dir)?.type === "whiteout") tree.set(dir, { type: "dir", mode: 0o755, owner: BASE_DIRS.get(dir) ?? owner });
}

/** How a COPY step places the uploaded members (Docker's rules). */
export interface CopyArgs {
  src: string;
  dest: string;
  owner: string;
  /** Permission bits for every copied entry, from `--chmod`; undefined keeps each member's. */
  mode: number | undefined;
  workdir: string;
}

/**
 * Copies the members `src` names into the tree: a directory's contents go into `dest`, a file goes
 * to `dest` itself, or into it when `dest` ends with `/`, is a directory, or several sources match.
 *
 * @returns how many entries were placed; 0 means `src` matched nothing.
 */
export function applyCopy(tree: Map<string, TreeNode>, members: readonly TarMember[], args: CopyArgs): number {
  const src = posix.normalize(args.src).replace(/^\.\/+/, "").replace(/\/+$/, "");
  const dest = sandboxPath(args.dest, args.workdir);
  const before = tree.size;
  let placed = 0;
  const put = (path: string, m: TarMember) => {
    ensureDir(tree, posix.dirname(path), args.owner);
    const node: TreeNode = { type: m.type, mode: args.mode ?? m.mode, owner: args.owner };
    if (m.type === "file") node.data = m.data;
    if (m.type === "symlink") node.linkname = m.linkname;
    tree.set(path, node);
    placed++;
  };
  if (src === "." || src === "") {
    ensureDir(tree, dest, args.owner);
    for (const m of members) put(posix.join(dest, m.path), m);
    return Math.max(placed, tree.size - before, 1);
  }
  const re = globRegExp(src);
  const tops = members.filter((m) => re.test(m.path));
  const into = args.dest.endsWith("/") || tops.length > 1 || tree.get(dest)?.type === "dir";
  for (const top of tops) {
    if (top.type === "dir") {
      ensureDir(tree, dest, args.owner);
      placed++;
      for (const m of members) if (m.path.startsWith(`${top.path}/`)) put(posix.join(dest, m.path.slice(top.path.length + 1)), m);
    } else {
      put(into ? posix.join(dest, posix.basename(top.path)) : dest, top);
    }
  }
  return placed;
}

function globRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|\\]/g, "\\$&").replace(/\*\*/g, "\u0000").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]").replace(/\u0000/g, ".*");
  return new RegExp(`^${body}$`);
}
