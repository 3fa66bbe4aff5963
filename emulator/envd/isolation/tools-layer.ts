/**
 * What E2B's base image gives a start command that this host's `/usr` may lack, laid read-only over
 * the host's `/usr` in every sandbox (one more lower layer of its overlay, setup-script.ts), so a
 * command finds it where the base image has it:
 *
 * - `sudo`: the base image lets `user` run anything as root without a password. The host's own
 *   sudo (when there is one) cannot work in a sandbox: it is setuid to the host's root, which is
 *   not mapped into the sandbox's user namespace. This one is a script that runs the command
 *   through a copy of util-linux `setpriv` that is setuid to the sandbox's root. That copy lies in
 *   a dir only the sandbox's root and `user` may enter (owner: the sandbox's root; group: its
 *   `user`, mode 0750), so on the host, where those are unprivileged ids of their own, no other
 *   account can reach it.
 * - `python`: the base image has it as well as `python3`; a host with only `/usr/bin/python3` gets
 *   a link, so `python` does not fall through to something of the host's (a pyenv shim under the
 *   host's `/root`, which the sandbox's own `/root` hides).
 *
 * Written once per data dir, beside the account files (layout.ts).
 */
import { chmodSync, chownSync, copyFileSync, existsSync, lchownSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { systemBindsOf, type SystemBind } from "./layout";
import type { Isolation } from "./mode";

type Namespaces = Isolation & { mode: "namespaces" };

/** Where the setuid helper lies in a sandbox. */
const HELPER = "/usr/lib/sandbox-emulator/setpriv";

/** sudo as E2B's base image configures it for `user` (NOPASSWD: ALL), with the options commands use. */
const SUDO = `#!/bin/sh
# sudo of the sandbox emulator: user may run any command as any user without a password, as in
# E2B's base image. Options: -u USER, -E, -H, -n, -i, -s, --.
target=root keep= login= shell=
while [ $# -gt 0 ]; do
  case "$1" in
    -u) target=$2; shift 2 ;;
    -u*) target=\${1#-u}; shift ;;
    --user=*) target=\${1#--user=}; shift ;;
    -E|--preserve-env) keep=1; shift ;;
    -i|--login) login=1; shift ;;
    -s|--shell) shell=1; shift ;;
    -n|-H|-S|--non-interactive|--set-home|--stdin) shift ;;
    --) shift; break ;;
    -*) echo "sudo: $1: not an option the sandbox emulator's sudo knows" >&2; exit 1 ;;
    *) break ;;
  esac
done
entry=$(awk -F: -v u="$target" '$1 == u { print $3 ":" $4 ":" $6; exit }' /etc/passwd)
[ -n "$entry" ] || { echo "sudo: unknown user $target" >&2; exit 1; }
uid=\${entry%%:*}; rest=\${entry#*:}; gid=\${rest%%:*}; home=\${rest#*:}
if [ -n "$login" ]; then set -- /bin/bash -c 'cd "$HOME" || exit 1; [ $# -gt 0 ] || exec /bin/bash -l; exec /bin/bash -l -c "$*"' sudo "$@"
elif [ -n "$shell" ]; then set -- "\${SHELL:-/bin/bash}" \${1:+-c "$*"}
fi
[ $# -gt 0 ] || { echo "usage: sudo [-u user] [-E] [-i | -s] command" >&2; exit 1; }
if [ -n "$keep" ]; then reset=; else reset=-i; fi
exec ${HELPER} --reuid="$uid" --regid="$gid" --clear-groups -- /usr/bin/env $reset \\
  \${TERM:+TERM="$TERM"} PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\
  HOME="$home" USER="$target" LOGNAME="$target" SHELL=/bin/bash \\
  SUDO_USER="$(id -un)" SUDO_UID="$(id -u)" SUDO_GID="$(id -g)" SUDO_COMMAND="$*" "$@"
`;

/** The layer's dir (it holds `usr/`), made on first use. */
export function toolsLayerOf(systemDir: string, isolation: Namespaces): string {
  const layer = join(systemDir, "tools");
  if (existsSync(layer)) return layer;
  // Made aside and renamed into place, so two sandboxes starting at once never see half of it.
  const draft = `${layer}.${process.pid}.${Date.now()}`;
  writeLayer(draft, isolation);
  try {
    renameSync(draft, layer);
  } catch {
    rmSync(draft, { recursive: true, force: true }); // another start made it first
  }
  return layer;
}

function writeLayer(dir: string, isolation: Namespaces): void {
  const root = isolation.idBase;
  const user = isolation.idBase + 1000;
  const made = (path: string, mode: number, group = root) => {
    chownSync(path, root, group);
    chmodSync(path, mode);
  };
  for (const sub of ["", "/usr", "/usr/bin", "/usr/lib"]) {
    mkdirSync(dir + sub);
    made(dir + sub, 0o755);
  }
  writeFileSync(join(dir, "usr/bin/sudo"), SUDO);
  made(join(dir, "usr/bin/sudo"), 0o755);
  if (!existsSync("/usr/bin/python") && existsSync("/usr/bin/python3")) {
    symlinkSync("python3", join(dir, "usr/bin/python"));
    lchownSync(join(dir, "usr/bin/python"), root, root);
  }
  const helperDir = join(dir, "usr/lib/sandbox-emulator");
  mkdirSync(helperDir);
  made(helperDir, 0o750, user);
  copyFileSync(isolation.tools.setpriv, join(dir, HELPER));
  made(join(dir, HELPER), 0o4750, user);
}

/**
 * The read-only system binds of a sandbox root with the tools layer under its `/usr`: what every
 * command of the sandbox sees, a build's RUN and start commands (../../store/build-sandbox.ts)
 * included, since the service builds in the same base image its sandboxes start from.
 */
export function systemBindsWithTools(rootDir: string, systemDir: string, isolation: Namespaces): SystemBind[] {
  const tools = join(toolsLayerOf(systemDir, isolation), "usr");
  return systemBindsOf(rootDir).map((b) => (b.sandboxPath === "/usr" ? { ...b, lowers: [tools] } : b));
}
