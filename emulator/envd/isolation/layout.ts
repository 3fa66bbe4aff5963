/**
 * What a sandbox's `/` is made of in the namespaces mode, shared by the three places that must
 * agree on it: the host-side root dir (made when the sandbox is created), the mount setup inside
 * its namespaces (namespace.ts), and the file API's path mapping (../paths.ts), so one path names
 * one file for a command, ListDir/Stat, `/files` and the volume API alike.
 *
 * - The host's system dirs (`/usr`, `/etc`, and `/bin`, `/lib`... where they are real dirs) are
 *   bound read-only: a sandbox runs the host's programs but cannot change them. Where the host has
 *   them as links into `/usr` (merged /usr), the sandbox gets the same links. Where the sandbox's
 *   template put files under one (a COPY into `/usr/local/bin` or `/etc/app`), those files lie in
 *   the same dir of the sandbox's root dir and are shown over the host's, read-only too (an overlay),
 *   as the image's files are on the service.
 * - `/etc/passwd` and `/etc/group` are the sandbox's own (root, user 1000, nobody), bound over the
 *   host's so `whoami` says `user` and no host account shows through.
 * - Everything else (`/home/user`, `/root`, a private `/tmp`, `/opt`, `/var`...) is a real
 *   directory in the sandbox's root dir under the emulator's data dir, owned by the sandbox's ids.
 * - `/proc` and `/dev` exist only inside: the sandbox's own proc and a minimal dev.
 */
import { chmodSync, chownSync, existsSync, lchownSync, lstatSync, mkdirSync, opendirSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { UPLINK_DNS } from "../network/egress-rules";
import type { Isolation } from "./mode";

/** A sandbox id (root 0, user 1000) as the host sees it in the namespaces mode. */
export function hostId(isolation: Isolation, sandboxId: number): number | undefined {
  return isolation.mode === "namespaces" ? isolation.idBase + sandboxId : undefined;
}

/**
 * The name envd would show for a host file owner id: the sandbox's root and user by their mapped
 * ids; the host's root (the owner of the read-only system dirs) as root, as on the service where
 * the image's files are root's. Without namespaces, the emulator's own id stands for `user`.
 */
export function ownerName(isolation: Isolation, id: number): string {
  if (isolation.mode === "none") {
    if (id === process.getuid?.()) return "user";
    return id === 0 ? "root" : String(id);
  }
  const inside = id - isolation.idBase;
  if (inside === 1000) return "user";
  if (inside === 0 || id === 0) return "root";
  return inside > 0 && inside < 65_536 ? String(inside) : String(id);
}

/**
 * The sandbox id of a template file's owner as a tree names it (ownerName): root, `user`, or the
 * number of another of the image's users; any other name stands for `user`.
 */
export function ownerId(owner: string): number {
  if (owner === "root") return 0;
  return /^\d+$/.test(owner) && Number(owner) < 65_536 ? Number(owner) : 1000;
}

/** The sandbox's ids of a known user. */
export function idsOf(user: "root" | "user"): number {
  return user === "root" ? 0 : 1000;
}

/** Beside an image sandbox's root dir (its overlay's upper dir): the overlay's scratch dir and mount point. */
export function overlayDirsOf(rootDir: string): { base: string; work: string; merged: string } {
  const base = `${rootDir}.overlay`;
  return { base, work: join(base, "work"), merged: join(base, "merged") };
}

/** Top-level host dirs a sandbox sees read-only (when real dirs on this host). */
const SYSTEM_DIRS = ["/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/** Private dirs of every sandbox: path, owner (sandbox id), mode. Parents come first. */
const PRIVATE_DIRS: readonly [string, number, number][] = [
  ["/home", 0, 0o755], ["/home/user", 1000, 0o755], ["/root", 0, 0o700], ["/tmp", 0, 0o1777],
  ["/opt", 0, 0o755], ["/srv", 0, 0o755], ["/mnt", 0, 0o755], ["/media", 0, 0o755], ["/run", 0, 0o755],
  ["/var", 0, 0o755], ["/var/tmp", 0, 0o1777], ["/var/log", 0, 0o755], ["/proc", 0, 0o555], ["/dev", 0, 0o755],
];

/** One read-only bind of a host dir or file into the sandbox. */
export interface SystemBind {
  sandboxPath: string;
  hostPath: string;
  /** The same dir of the sandbox's root dir holds template files, shown over the host's. */
  layered?: true;
  /** Host dirs shown over the host's, under the template's files (the tools layer: tools-layer.ts). */
  lowers?: string[];
}

let view: { binds: SystemBind[]; links: { path: string; target: string }[] } | undefined;

/** How this host's top-level system dirs appear in a sandbox: read-only binds and links (read once). */
export function systemView(): { binds: SystemBind[]; links: { path: string; target: string }[] } {
  if (view) return view;
  const binds: SystemBind[] = [];
  const links: { path: string; target: string }[] = [];
  for (const dir of SYSTEM_DIRS) {
    const st = lstatOrUndefined(dir);
    if (st?.isSymbolicLink()) links.push({ path: dir, target: readlinkSync(dir) });
    else if (st?.isDirectory()) binds.push({ sandboxPath: dir, hostPath: dir });
  }
  return (view = { binds, links });
}

/** The system binds of the sandbox whose root dir is `rootDir`: layered where its template put files. */
export function systemBindsOf(rootDir: string): SystemBind[] {
  return systemView().binds.map((b) => (hasEntries(join(rootDir, b.sandboxPath)) ? { ...b, layered: true } : b));
}

function hasEntries(dir: string): boolean {
  try {
    const handle = opendirSync(dir);
    try {
      return handle.readSync() !== null;
    } finally {
      handle.closeSync();
    }
  } catch {
    return false;
  }
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

const PASSWD = [
  "root:x:0:0:root:/root:/bin/bash",
  "user:x:1000:1000::/home/user:/bin/bash",
  "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin",
];
const GROUP = ["root:x:0:", "user:x:1000:", "nogroup:x:65534:"];

/** Where the sandbox's own account files live on the host: beside the sandbox roots, shared by all. */
export function systemDirOf(rootDir: string): string {
  return join(dirname(rootDir), ".system");
}

/** The sandbox's own account files, bound over the host's `/etc/passwd` and `/etc/group`. */
export function accountBinds(systemDir: string): SystemBind[] {
  return [
    { sandboxPath: "/etc/passwd", hostPath: join(systemDir, "passwd") },
    { sandboxPath: "/etc/group", hostPath: join(systemDir, "group") },
  ];
}

/**
 * The resolver file of an uplinked sandbox (../network/uplink.ts: slirp4netns's DNS at 10.0.2.3),
 * written once beside the account files; returns its path.
 */
export function writeResolvConf(systemDir: string): string {
  const path = join(systemDir, "resolv.conf");
  mkdirSync(systemDir, { recursive: true });
  if (!existsSync(path)) writeFileSync(path, `nameserver ${UPLINK_DNS}\n`, { mode: 0o644 });
  return path;
}

/** Writes the account files once (they are the same for every sandbox). */
export function writeAccountFiles(systemDir: string): void {
  mkdirSync(systemDir, { recursive: true });
  const [passwd, group] = accountBinds(systemDir) as [SystemBind, SystemBind];
  if (!existsSync(passwd.hostPath)) writeFileSync(passwd.hostPath, `${PASSWD.join("\n")}\n`, { mode: 0o644 });
  if (!existsSync(group.hostPath)) writeFileSync(group.hostPath, `${GROUP.join("\n")}\n`, { mode: 0o644 });
}

/**
 * Lays out a sandbox's root dir for the namespaces mode: the private dirs owned by the sandbox's
 * ids, the system links, and an empty dir for each system bind and each volume mount point. The
 * root dir itself may already be a volume (a mount at `/`): then this is made inside the volume.
 */
export function prepareRoot(rootDir: string, isolation: Isolation & { mode: "namespaces" }, mountPaths: string[]): void {
  const own = (path: string, id: number, mode: number) => {
    chownSync(path, isolation.idBase + id, isolation.idBase + id);
    chmodSync(path, mode);
  };
  mkdirSync(rootDir, { recursive: true });
  own(rootDir, 0, 0o755);
  const view = systemView();
  for (const [path, id, mode] of PRIVATE_DIRS) {
    const at = join(rootDir, path);
    if (!existsSync(at)) mkdirSync(at);
    own(at, id, mode);
  }
  for (const link of view.links) {
    const at = join(rootDir, link.path);
    if (lstatOrUndefined(at)) continue;
    symlinkSync(link.target, at);
    lchownSync(at, isolation.idBase, isolation.idBase);
  }
  for (const bind of view.binds) mkdirSync(join(rootDir, bind.sandboxPath), { recursive: true });
  for (const path of mountPaths) if (path !== "/") mkdirSync(join(rootDir, path), { recursive: true });
}
