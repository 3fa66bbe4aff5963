/**
 * A sandbox's namespaces: one long-lived init process per running sandbox, made with util-linux
 * `unshare` (user + mount + PID namespaces, and network where `ip` is there to bring its loopback
 * up), into which every command is started with `nsenter`. Its own network is what lets two
 * sandboxes serve the same port; the proxy reaches into it through ../ports/bridge.ts.
 *
 * Start-up, in order:
 * 1. `setpriv` drops to the host id that stands for the sandbox's root (see mode.ts) and arms a
 *    parent-death signal, then `unshare` makes the namespaces and forks the init.
 * 2. The init says `unshared`; the emulator (host root) writes the user namespace's id maps
 *    (sandbox 0..65535 = host idBase..), which `unshare` itself cannot do without `newuidmap`.
 * 3. The init re-executes itself through `setpriv` (re-arming its parent-death signal), now root of
 *    its namespace, and runs the mount setup (setup-script.ts): binds, its own /proc and /dev,
 *    pivot_root into the sandbox's root dir.
 * 4. It prints its host pid and waits forever as the namespace's PID 1, reaping orphans.
 *
 * Nothing outlives the emulator: the emulator's death kills `unshare` (parent-death signal), whose
 * death kills the init (its own parent-death signal, re-armed at each exec that clears it), and the init's
 * death makes the kernel kill every process of its PID namespace.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { realpathSync, writeFileSync } from "node:fs";
import { access } from "node:fs/promises";
import { ID_COUNT, type Isolation } from "./mode";
import type { Egress } from "../network/egress-rules";
import { imageOverlayOptions, setupScript, type SetupPlan } from "./setup-script";
import { Uplink, uplinkTools } from "../network/uplink";

/** How long the namespace setup may take before the sandbox's first call fails, in ms. */
const SETUP_TIMEOUT_MS = 15_000;

type Namespaces = Isolation & { mode: "namespaces" };

/** The argv that runs a command inside a started namespace as one of its users. */
export interface Launch {
  file: string;
  args: string[];
  /** The command's shell writes its pid in the sandbox to fd 3 (see `launch`). */
  reportsPid?: true;
}

/** Mounts an image sandbox's overlay in its mount namespace (entered as the host's root: setup-script.ts says why). */
function mountImage(nsenter: string, pid: number, upper: string, image: NonNullable<SetupPlan["image"]>): void {
  const options = imageOverlayOptions(upper, image);
  execFileSync(nsenter, [`--target=${pid}`, "--mount", "--", "mount", "-t", "overlay", "overlay", "-o", options, image.merged], { stdio: ["ignore", "ignore", "pipe"] });
}

export class SandboxNamespace {
  private init: ChildProcess | undefined;
  private initPid = 0;
  /** Its way out to the network, when the plan has egress rules and the host has the tools (../network/uplink.ts). */
  private uplink: Uplink | undefined;

  private constructor(private readonly isolation: Namespaces) {}

  /** Makes the namespaces and runs the setup; rejects with the setup's own error output. */
  static async start(isolation: Namespaces, plan: SetupPlan): Promise<SandboxNamespace> {
    const ns = new SandboxNamespace(isolation);
    const tools = uplinkTools(isolation.tools);
    if (plan.egress && tools) ns.uplink = await Uplink.hold(tools, plan.egressHosts);
    // The mount setup and the uplink's connection side by side: both end before the sandbox's first command.
    const booted = ns.boot({ ...plan, rootDir: realpathSync(plan.rootDir), ...(ns.uplink ? { uplinked: true } : {}) });
    try {
      await Promise.all([booted, plan.egress && ns.uplink?.connect(plan.egress)]);
    } catch (err) {
      await ns.stop();
      throw err;
    }
    return ns;
  }

  /** Replaces the sandbox's egress rules (PUT /sandboxes/{id}/network); a sandbox with no uplink has no network to rule. */
  async applyEgress(egress: Egress): Promise<void> {
    await this.uplink?.apply(egress);
  }

  private boot(plan: SetupPlan): Promise<void> {
    const { tools, idBase } = this.isolation;
    // With an uplink, the namespaces are made inside its network namespace, which the host's root holds.
    const [file, ...before] = this.uplink ? [tools.nsenter, `--net=${this.uplink.netns}`, "--", tools.setpriv] : [tools.setpriv];
    // The re-exec that makes the init root of its namespace also clears its parent-death signal (the
    // kernel does so on any gain of capabilities), so it goes through setpriv, which arms it again at
    // once: an emulator killed (or a setup given up) during the mount setup then still takes the init.
    const stage = 'echo unshared && read -r _ && exec "$2" --pdeathsig KILL -- "$0" -c "$1" sandbox-setup';
    const child = spawn(
      file!,
      [...before, "--pdeathsig", "KILL", `--reuid=${idBase}`, `--regid=${idBase}`, "--clear-groups", "--",
        tools.unshare, "--user", "--mount", "--pid", ...(this.uplink ? [] : this.netFlag()), "--fork", "--kill-child", "--propagation", "private", "--",
        tools.bash, "-c", stage, tools.bash, setupScript(plan, tools), tools.setpriv],
      { stdio: ["pipe", "pipe", "pipe"], env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" } },
    );
    this.init = child;
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => void (stderr += d.toString()));
    return new Promise<void>((resolve, reject) => {
      const fail = (why: string) => {
        clearTimeout(timer);
        child.kill("SIGKILL");
        reject(new Error(`sandbox isolation setup failed: ${why}${stderr.trim() ? `: ${stderr.trim()}` : ""}`));
      };
      const timer = setTimeout(() => fail(`no answer within ${SETUP_TIMEOUT_MS} ms`), SETUP_TIMEOUT_MS);
      child.once("error", (err) => fail(err.message));
      child.once("exit", (code, signal) => fail(`the init ended (${signal ?? `exit ${code}`})`));
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out === "unshared\n") {
          try {
            writeFileSync(`/proc/${child.pid}/uid_map`, `0 ${idBase} ${ID_COUNT}\n`);
            writeFileSync(`/proc/${child.pid}/gid_map`, `0 ${idBase} ${ID_COUNT}\n`);
            if (plan.image) mountImage(tools.nsenter, child.pid!, plan.rootDir, plan.image);
          } catch (err) {
            return fail(`${plan.image ? "mounting the image's files" : "writing the id maps"}: ${(err as Error).message}`);
          }
          child.stdin.write("go\n");
        }
        const ready = /ready (\d+)\n/.exec(out);
        if (ready) {
          clearTimeout(timer);
          child.removeAllListeners("exit");
          this.initPid = Number(ready[1]);
          resolve();
        }
      });
    });
  }

  /**
   * The argv that runs `argv` in the sandbox as `who` (ids; one number: both), in `cwd`, under
   * `prefix` (a host command that execs the rest, e.g. `prlimit ... --`). With `reportPid`, the
   * shell first writes its pid in the sandbox, which the command keeps, to fd 3 and closes it
   * (../process/sandbox-pid.ts): the spawner gives it fd 3 as a pipe.
   */
  launch(who: number | { uid: number; gid: number }, cwd: string, argv: string[], prefix: string[] = [], opts: { reportPid?: boolean } = {}): Launch {
    const { tools } = this.isolation;
    const [uid, gid] = typeof who === "number" ? [who, who] : [who.uid, who.gid];
    const report = opts.reportPid ? "echo $$ >&3; exec 3>&-; " : "";
    // The prefix runs on the host before nsenter: what it sets (limits) passes through setns and
    // exec, and the sandbox's `/` (an image's, store/image-roots.ts) need not hold it.
    const [file = tools.nsenter, ...before] = prefix.length > 0 ? [...prefix, tools.nsenter] : [];
    return {
      file,
      args: [
        ...before,
        `--target=${this.initPid}`, "--user", "--mount", "--pid", ...this.netFlag(), "--root", `--setuid=${uid}`, `--setgid=${gid}`, "--",
        // nsenter resolves --wd on the host, so the sandbox's cwd is entered by the shell inside.
        "/bin/sh", "-c", `${report}cd "$1" || exit 1; shift; exec "$@"`, "--", cwd, ...argv,
      ],
      ...(opts.reportPid ? { reportsPid: true as const } : {}),
    };
  }

  /**
   * Whether the sandbox's own process list still has `pid` (a zombie included, as `kill -0` sees
   * it), read from the host through the init's root, whose `/proc` is the sandbox's.
   */
  hasPid(pid: number): Promise<boolean> {
    return access(`/proc/${this.initPid}/root/proc/${pid}/stat`).then(() => true, () => false);
  }

  /**
   * Sends `signal` to every process of the sandbox but its init, from inside as its root
   * (`kill -1`: the kernel walks the namespace's processes at once, so none forked meanwhile is
   * missed). SIGSTOP freezes the sandbox for a pause that keeps its memory; SIGCONT resumes it.
   */
  signalAll(signal: "STOP" | "CONT"): Promise<void> {
    const launch = this.launch(0, "/", ["/bin/sh", "-c", `kill -${signal} -1`]);
    return new Promise((resolve) => {
      const child = spawn(launch.file, launch.args, { stdio: "ignore", env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" } });
      child.once("error", () => resolve());
      child.once("exit", () => resolve());
    });
  }

  /** The init's pid as the host sees it: the handle to enter its namespaces by. */
  get pid(): number {
    return this.initPid;
  }

  /** Whether the sandbox has its own network namespace (see the header). */
  get ownNetwork(): boolean {
    return this.isolation.tools.ip !== undefined;
  }

  private netFlag(): string[] {
    return this.ownNetwork ? ["--net"] : [];
  }

  /** Kills the init, which ends every process of the sandbox; resolves once it is gone. */
  stop(): Promise<void> {
    this.uplink?.stop();
    const init = this.init;
    if (!init || init.exitCode !== null || init.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      init.once("exit", () => resolve());
      init.kill("SIGKILL");
    });
  }
}
