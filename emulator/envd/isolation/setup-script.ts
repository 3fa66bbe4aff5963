/**
 * The mount setup a sandbox's init runs as root of its fresh user + mount namespaces (see
 * namespace.ts), as one bash script: every mount is made in the sandbox's own mount namespace, so
 * the host's mounts never change. Paths are passed quoted; none comes from a request unchecked
 * (volume mount paths are validated clean absolute paths at create).
 */
import type { EgressHosts } from "../network/egress-proxy";
import type { Egress } from "../network/egress-rules";
import type { SystemBind } from "./layout";
import { shellQuote as q } from "./shell-quote";
import type { Tools } from "./mode";

/** What one sandbox's view is made of. */
export interface SetupPlan {
  /** Host dir that becomes the sandbox's `/` (real path). */
  rootDir: string;
  /** Host dirs and files bound read-only, in order (a file over a bound dir comes after it). */
  readOnly: SystemBind[];
  /** Volumes: host dir → sandbox path, read-write. */
  volumes: SystemBind[];
  /**
   * The sandbox's `/` is an image's files (store/image-roots.ts) with `rootDir` over them: an overlay
   * of `lower` (read-only) and `rootDir` (its upper dir, where every change lands), mounted at `merged`,
   * with `work` the overlay's scratch dir beside `rootDir`. No host dir is bound then (`readOnly` is
   * empty): nothing of the host's is in the sandbox but its devices.
   */
  image?: { lower: string; work: string; merged: string };
  /**
   * What the sandbox may reach: with it, and where the host has the tools, the sandbox gets a way out
   * to the network (uplink.ts) under these rules; without, its loopback alone.
   */
  egress?: Egress;
  /** Names the egress proxy resolves to fixed addresses before DNS (the emulator's `egressHosts`). */
  egressHosts?: EgressHosts;
  /** Set by namespace.ts: the network namespace is the uplink's, its loopback already up. */
  uplinked?: true;
  /** A host file bound over the sandbox's `/etc/resolv.conf` when it is uplinked (the uplink's resolver). */
  resolvConf?: string;
}

/** Device nodes a sandbox gets from the host; no disk, no kernel memory. */
const DEVICES = ["null", "zero", "full", "random", "urandom", "tty"];


/**
 * A read-only overlay at `at` (a dir of the sandbox's root dir) over the host dir: its lower dirs are,
 * from the top, the template's files there (`layered`), the extra `lowers`, then the host dir, so
 * an upper file replaces a lower one of the same path. The mount options separate dirs with `:`
 * and options with `,`: a path holding either is refused.
 */
function overlay(at: string, bind: SystemBind): string {
  const dirs = [...(bind.layered ? [at] : []), ...(bind.lowers ?? []), bind.hostPath];
  for (const dir of dirs) {
    if (/[,:\\]/.test(dir)) throw new Error(`cannot layer files over ${bind.hostPath}: the path ${dir} holds a ',', ':' or '\\'`);
  }
  return `mount -t overlay overlay -o ${q(`ro,lowerdir=${dirs.join(":")}`)} ${q(at)}`;
}

/** The script; it ends by printing `ready <host pid>` and becoming the namespace's reaping init. */
export function setupScript(plan: SetupPlan, tools: Pick<Tools, "setpriv" | "bash" | "ip">): string {
  const top = plan.image?.merged ?? plan.rootDir;
  const R = q(top);
  const at = (sandboxPath: string) => q(top + sandboxPath);
  const lines = [
    "set -eu",
    // A new network namespace has only a loopback, and it is down: a server on 127.0.0.1 needs it up.
    ...(tools.ip && !plan.uplinked ? [`${q(tools.ip)} link set lo up`] : []),
    // An image sandbox's overlay is mounted from the host before this runs (namespace.ts).
    ...(plan.image ? [] : [`mount --bind ${R} ${R}`]),
    ...plan.readOnly.map((b) => (b.layered || b.lowers ? overlay(plan.rootDir + b.sandboxPath, b) : `mount --bind -o ro ${q(b.hostPath)} ${at(b.sandboxPath)}`)),
    ...plan.volumes.map((b) => `mount --bind ${q(b.hostPath)} ${at(b.sandboxPath)}`),
    // Read while /proc is still the host's: the init's pid as the host (and nsenter) sees it.
    "read -r hostpid _ < /proc/self/stat",
    `mount -t proc -o nosuid,nodev,noexec proc ${at("/proc")}`,
    `mount -t tmpfs -o nosuid,mode=755,size=64k dev ${at("/dev")}`,
    ...DEVICES.flatMap((d) => [`: > ${at(`/dev/${d}`)}`, `mount --bind /dev/${d} ${at(`/dev/${d}`)}`]),
    `mkdir ${at("/dev/pts")} ${at("/dev/shm")}`,
    `mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts ${at("/dev/pts")}`,
    `ln -s pts/ptmx ${at("/dev/ptmx")}`,
    `mount -t tmpfs -o nosuid,nodev,mode=1777 shm ${at("/dev/shm")}`,
    // Each boot of a sandbox has its own boot_id, as each boot of the service's VM has: a resume
    // from memory keeps these namespaces (and the id), a cold boot makes new ones. Read from the
    // host's /proc, still mounted here, and bound read-only over the sandbox's.
    `cat /proc/sys/kernel/random/uuid > ${at("/dev/.boot_id")}`,
    `mount --bind -o ro ${at("/dev/.boot_id")} ${at("/proc/sys/kernel/random/boot_id")}`,
    `rm ${at("/dev/.boot_id")}`,
    ...(plan.uplinked && plan.resolvConf ? resolvConfBind(plan.resolvConf, at("/etc/resolv.conf")) : []),
    `mkdir -p ${at("/.old-root")}`,
    `cd ${R}`,
    "pivot_root . .old-root",
    "umount -l /.old-root",
    "rmdir /.old-root",
    "cd /",
    'echo "ready $hostpid"',
    ...(plan.image ? imageInit() : hostInit(tools)),
  ];
  return lines.join("\n");
}

/**
 * The mount options of the overlay that is an image sandbox's `/`. It is mounted by the host's root
 * into the sandbox's mount namespace (namespace.ts), not by the sandbox's root: an overlay mounted in
 * a user namespace refuses to make a file for an id it does not map (EOVERFLOW), and the file API
 * makes files as the host's root before handing them to their owner (../ownership.ts).
 */
export function imageOverlayOptions(upper: string, image: NonNullable<SetupPlan["image"]>): string {
  for (const dir of [image.lower, upper, image.work]) {
    if (/[,:\\]/.test(dir)) throw new Error(`cannot make an overlay of ${dir}: the path holds a ',', ':' or '\\'`);
  }
  return `lowerdir=${image.lower},upperdir=${upper},workdir=${image.work}`;
}

/**
 * The uplink's resolver as the sandbox's: bound over its `/etc/resolv.conf` when that is a plain file
 * (made empty first on an image that has none); a link (a host's systemd-resolved stub) is left as it is.
 */
function resolvConfBind(file: string, target: string): string[] {
  return [`if [ ! -e ${target} ] && [ ! -L ${target} ]; then : > ${target} 2>/dev/null || true; fi`, `if [ -f ${target} ] && [ ! -L ${target} ]; then mount --bind -o ro ${q(file)} ${target}; fi`];
}

/**
 * An image sandbox's init is this same bash, reading its stdin (the emulator's pipe) until it
 * closes: the image need hold no particular program, and the emulator's end (the pipe's) ends the
 * init, and with it the sandbox. As PID 1, bash reaps every orphan as its SIGCHLD comes.
 */
function imageInit(): string[] {
  return ["exec 1>/dev/null 2>/dev/null", "while read -r _; do :; done"];
}

/** A host-dirs sandbox's init: the loop below, started afresh from the host's bash the sandbox sees. */
function hostInit(tools: Pick<Tools, "setpriv" | "bash">): string[] {
  return [
    "exec 0</dev/null 1>/dev/null 2>/dev/null",
    // Armed again for the init's whole life, so it dies with `unshare`. As PID 1, bash reaps every
    // orphan while it waits. A `sleep` that cannot be found (127) means the sandbox's root dir was
    // removed under it, by an emulator that is gone: the init ends rather than spin, and its end
    // ends the namespace. A sleep killed by a signal (a sandbox's `kill -9 -1`) is simply restarted.
    `exec ${q(tools.setpriv)} --pdeathsig KILL -- ${q(tools.bash)} -c 'while sleep 86400 & wait $!; [ $? -ne 127 ]; do :; done'`,
  ];
}
