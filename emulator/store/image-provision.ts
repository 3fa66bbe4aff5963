/**
 * What the service's builder adds to every image before a template's steps run, done to an
 * unpacked image's root once, on the host: the default user `user` (uid 1000, home `/home/user`,
 * shell `/bin/bash`) when the image has none of that name, a `/home/user` the user owns, `/code`
 * and `/usr/local` writable by all, and the mount points a sandbox's setup needs (`/proc`, `/dev`,
 * `/tmp`, `/run`). infra: packages/orchestrator/pkg/template/build/phases/finalize/configure.sh
 * (`useradd -m -s /bin/bash user`, `chmod -R 777 /usr/local`, `mkdir -p /code`); the emulator
 * edits the account files itself, since an image need not have `useradd`, and makes `/usr/local`
 * itself 0777 rather than every file under it.
 *
 * The root is an untrusted image's: the account files are read without following a link
 * (../confined), and written through template-fill.ts, which never writes through one.
 */
import { readSmallFile } from "../confined/read-small";
import { locate } from "../confined/walk";
import { fillSandboxRoot } from "./template-fill";
import type { TreeNode } from "./template-tree";

/** The account files' lines the image lacks are added for these, as configure.sh's useradd would. */
const ROOT = { passwd: "root:x:0:0:root:/root:/bin/bash", group: "root:x:0:" };
const USER = { passwd: "user:x:1000:1000::/home/user:/bin/bash", group: "user:x:1000:" };

/** Dirs every provisioned root has: path, owner, mode. */
const DIRS: readonly [string, "root" | "user", number][] = [
  ["/home", "root", 0o755], ["/home/user", "user", 0o755], ["/root", "root", 0o700], ["/tmp", "root", 0o1777],
  ["/code", "root", 0o777], ["/usr", "root", 0o755], ["/usr/local", "root", 0o777], ["/proc", "root", 0o555],
  ["/dev", "root", 0o755], ["/run", "root", 0o755], ["/etc", "root", 0o755],
];

/**
 * Provisions the unpacked image at `rootfs`. `hostOwner` maps `root` and `user` to the host ids
 * that stand for them (the sandboxes' id base), as template-fill.ts takes it.
 */
export async function provisionImageRoot(rootfs: string, hostOwner: (owner: string) => number | undefined): Promise<void> {
  const tree = new Map<string, TreeNode>();
  for (const [path, owner, mode] of DIRS) tree.set(path, { type: "dir", mode, owner });
  const passwd = await readText(rootfs, "/etc/passwd");
  const group = await readText(rootfs, "/etc/group");
  tree.set("/etc/passwd", { type: "file", mode: 0o644, owner: "root", data: Buffer.from(withAccounts(passwd, [ROOT.passwd, USER.passwd])) });
  tree.set("/etc/group", { type: "file", mode: 0o644, owner: "root", data: Buffer.from(withAccounts(group, [ROOT.group, USER.group])) });
  await fillSandboxRoot(rootfs, { tree, env: {}, workdir: "/", user: "root" }, [], hostOwner);
}

/** `text` with each line of `lines` whose name (first field) it lacks appended. */
export function withAccounts(text: string, lines: string[]): string {
  const names = new Set(text.split("\n").map((l) => l.split(":")[0]));
  const missing = lines.filter((l) => !names.has(l.split(":")[0]));
  if (missing.length === 0) return text;
  return `${text === "" || text.endsWith("\n") ? text : `${text}\n`}${missing.join("\n")}\n`;
}

/** An account file of the image, "" when it is missing, not a plain file, or over 1 MiB. */
async function readText(rootfs: string, path: string): Promise<string> {
  return (await readSmallFile(locate({ root: rootfs }, path), 1 << 20)) ?? "";
}
