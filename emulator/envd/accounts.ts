/**
 * The users a call may name (`Authorization: Basic <user>:`, `?username=`), as envd finds them: in
 * the sandbox's own `/etc/passwd` (infra: packages/envd/internal/permissions/authenticate.go,
 * `user.Lookup`), its home and ids from there. A sandbox on the host's dirs has the emulator's two
 * accounts (isolation/layout.ts); an image sandbox has whatever its image and template made, `user`
 * included (store/image-provision.ts), so a user a RUN step or a command created can be named.
 */
import { readSmallFile } from "../confined/read-small";
import type { SandboxRuntime } from "../types";
import { locateIn } from "./links";

export interface Account {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** root and `user`: the accounts of a sandbox on the host's dirs, and of one whose passwd cannot be read. */
export const BUILT_IN_ACCOUNTS: readonly Account[] = [
  { name: "root", uid: 0, gid: 0, home: "/root" },
  { name: "user", uid: 1000, gid: 1000, home: "/home/user" },
];

/** Largest passwd the emulator reads; an account file is a few KiB. */
const MAX_PASSWD_BYTES = 1 << 20;

/** The accounts of `passwd(5)` text; malformed lines are skipped, as getpwnam skips them. */
export function parsePasswd(text: string): Account[] {
  const accounts: Account[] = [];
  for (const line of text.split("\n")) {
    const [name, , uid, gid, , home] = line.split(":");
    if (!name || uid === undefined || gid === undefined || !/^\d+$/.test(uid) || !/^\d+$/.test(gid)) continue;
    accounts.push({ name, uid: Number(uid), gid: Number(gid), home: home || "/" });
  }
  return accounts;
}

/** The sandbox's accounts now: its `/etc/passwd` read in its own tree (no link followed out of it). */
export async function accountsOf(runtime: SandboxRuntime): Promise<readonly Account[]> {
  if (runtime.imageDir === undefined) return BUILT_IN_ACCOUNTS;
  const found = parsePasswd((await readSmallFile(locateIn(runtime, "/etc/passwd", { followLast: true }), MAX_PASSWD_BYTES)) ?? "");
  return found.length > 0 ? found : BUILT_IN_ACCOUNTS;
}
