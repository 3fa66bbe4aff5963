/**
 * How the emulator's sandboxes are isolated, decided once per process.
 *
 * `namespaces`: each sandbox runs in its own Linux user, mount, PID and network namespaces (util-linux
 * `unshare`/`nsenter`, see namespace.ts). Its users are mapped to unprivileged host ids:
 * sandbox uid/gid N is host N + `idBase`, so even a sandbox's root is an ordinary user on the
 * host and the host's own files stay protected by their permissions, not only by the mount view.
 * Writing a user namespace's map for a range of ids needs CAP_SETUID on the host, so this mode
 * needs the emulator to run as root (CI, containers). A normal user would need setuid
 * `newuidmap`, which a stock machine does not have configured for this.
 *
 * `none`: today's mode, where commands are plain host processes (macOS, containers that forbid
 * namespaces, a non-root user). The CLI warns on stderr and says so in its ready line. Which one
 * applies is decided by probe.ts.
 */
import { accessSync, constants } from "node:fs";

/** Host id that stands for the sandbox's id 0; the sandbox's ids 0..65535 map from here. */
export const ID_BASE = 100_000;
/** How many sandbox ids are mapped (0..65535). */
export const ID_COUNT = 65_536;

/** Paths of the util-linux tools the namespaces mode runs. */
export interface Tools {
  unshare: string;
  nsenter: string;
  setpriv: string;
  bash: string;
  /**
   * iproute2's `ip`, which brings a sandbox's own loopback up. Without it, sandboxes share the host's
   * network (no network namespace): see ../ports/dial.ts for what that cannot do.
   */
  ip?: string;
  /**
   * slirp4netns and iptables-restore: a sandbox's way out to the network and its egress rules
   * (../network/uplink.ts). Without either, a sandbox's network is its loopback alone.
   */
  slirp4netns?: string;
  iptablesRestore?: string;
}

export type Isolation = { mode: "namespaces"; idBase: number; tools: Tools } | { mode: "none"; reason: string };

const SEARCH = ["/usr/bin", "/bin", "/usr/sbin", "/sbin"];

function find(name: string): string | undefined {
  for (const dir of SEARCH) {
    try {
      accessSync(`${dir}/${name}`, constants.X_OK);
      return `${dir}/${name}`;
    } catch {
      // not in this dir
    }
  }
  return undefined;
}

/** The tools, or the name of the first one missing. */
export function findTools(): Tools | string {
  const names = ["unshare", "nsenter", "setpriv", "bash", "mount", "pivot_root"] as const;
  const found: Record<string, string> = {};
  for (const name of names) {
    const at = find(name);
    if (!at) return name;
    found[name] = at;
  }
  const [ip, slirp4netns, iptablesRestore] = [find("ip"), find("slirp4netns"), find("iptables-restore")];
  return { ...(found as unknown as Tools), ...(ip ? { ip } : {}), ...(slirp4netns ? { slirp4netns } : {}), ...(iptablesRestore ? { iptablesRestore } : {}) };
}

/** The line the CLI prints when isolated sandboxes have no way out to the network (../network/uplink.ts). */
export function networkNote(isolation: Isolation): string | undefined {
  if (isolation.mode !== "namespaces" || (isolation.tools.slirp4netns && isolation.tools.iptablesRestore && isolation.tools.ip)) return undefined;
  return "sandbox-emulator: note: sandboxes reach no network: slirp4netns, iptables-restore or ip is missing (apt-get install slirp4netns iptables iproute2).";
}

/** The one-line warning the CLI prints when sandboxes are not isolated. */
export function isolationWarning(isolation: Isolation): string | undefined {
  if (isolation.mode !== "none") return undefined;
  return (
    `sandbox-emulator: WARNING: sandboxes are NOT isolated (${isolation.reason}). ` +
    "Commands run as host processes with this user's rights; never run untrusted code."
  );
}
