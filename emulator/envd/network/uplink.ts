/**
 * A sandbox's way out to the network: a network namespace the host's root makes and holds (a
 * `sleep` that lives in it), reached through slirp4netns, which runs on the host and makes each of
 * the sandbox's connections as an ordinary host socket (`tap0`, 10.0.2.100, gateway 10.0.2.2, DNS
 * 10.0.2.3), with the host's own loopback out of reach (`--disable-host-loopback`). The sandbox's
 * namespaces are made inside it (../isolation/namespace.ts), so its root, root only of its own user namespace,
 * cannot change the namespace's interfaces or firewall; the egress rules (egress-rules.ts) are loaded
 * there by the host's root, again on each PUT /sandboxes/{id}/network.
 *
 * Both processes carry a parent-death signal: nothing outlives the emulator.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { childReady } from "../child-ready";
import { shellQuote } from "../isolation/shell-quote";
import { EgressProxy, type EgressHosts } from "./egress-proxy";
import { domainsOf } from "../../egress";
import { egressRules, type Egress } from "./egress-rules";
import type { Isolation, Tools } from "../isolation/mode";

/**
 * What the sandbox's root could do in a namespace of its own and cannot in one the host's root owns
 * (it has no capability there), given back per namespace: listening on a port below 1024 (a server on
 * :80), and ICMP echo (`ping`) from any user.
 */
const OPEN_TO_SANDBOX = "echo 0 > /proc/sys/net/ipv4/ip_unprivileged_port_start && echo '0 2147483647' > /proc/sys/net/ipv4/ping_group_range";

export type UplinkTools = Pick<Tools, "setpriv" | "unshare" | "nsenter" | "bash"> & { ip: string; slirp4netns: string; iptablesRestore: string };

/** `isolation` with no uplink for its sandboxes when the emulator is asked for loopback-only sandboxes. */
export function withNetwork(isolation: Isolation, network: "uplink" | "loopback" = "uplink"): Isolation {
  if (network === "uplink" || isolation.mode !== "namespaces") return isolation;
  const { slirp4netns: _s, iptablesRestore: _i, ...tools } = isolation.tools;
  return { ...isolation, tools };
}

/** The tools an uplink needs, when the host has them all. */
export function uplinkTools(tools: Tools): UplinkTools | undefined {
  const { slirp4netns, iptablesRestore, ip } = tools;
  return slirp4netns && iptablesRestore && ip ? { ...tools, slirp4netns, iptablesRestore, ip } : undefined;
}

export class Uplink {
  /** Started with the first `allowOut` domain (egress-proxy.ts). */
  private proxy: Promise<EgressProxy> | undefined;
  private slirp: ChildProcess | undefined;

  private constructor(
    private readonly tools: UplinkTools,
    private readonly holder: ChildProcess,
    private readonly hosts: EgressHosts,
  ) {}

  /**
   * Makes the namespace, its loopback up and nothing else: the sandbox's namespaces may be made in
   * it while `connect` runs, as long as both are done before the sandbox runs anything (namespace.ts).
   * `hosts`: the proxy's fixed names.
   */
  static async hold(tools: UplinkTools, hosts: EgressHosts = {}): Promise<Uplink> {
    const holder = spawn(
      tools.setpriv,
      ["--pdeathsig", "KILL", "--", tools.unshare, "--net", "--", tools.bash, "-c", `${shellQuote(tools.ip)} link set lo up && ${OPEN_TO_SANDBOX} && echo up && exec sleep infinity`],
      { stdio: ["ignore", "pipe", "pipe"], env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" } },
    );
    await childReady(holder, (out) => out.includes("up\n"), "the network namespace").catch((err: unknown) => {
      holder.kill("SIGKILL");
      throw err;
    });
    return new Uplink(tools, holder, hosts);
  }

  /** Connects the namespace (slirp4netns) and loads `egress`; rejects naming what failed (the caller stops it). */
  async connect(egress: Egress): Promise<void> {
    // --ready-fd: slirp4netns writes "1" to fd 3 once tap0 is configured in the namespace.
    this.slirp = spawn(
      this.tools.setpriv,
      ["--pdeathsig", "KILL", "--", this.tools.slirp4netns, "--configure", "--mtu=65520", "--disable-host-loopback", "--ready-fd=3", String(this.holder.pid), "tap0"],
      { stdio: ["ignore", "ignore", "pipe", "pipe"] },
    );
    await childReady(this.slirp, (out) => out.includes("1"), "slirp4netns", 3);
    await this.apply(egress);
  }

  /** The namespace's handle, for `nsenter --net=` and `unshare`'s callers. */
  get netns(): string {
    return `/proc/${this.holder.pid}/ns/net`;
  }

  /**
   * Replaces the namespace's egress rules at once (iptables-restore commits them in one go), the
   * proxy knowing the new domains first so that no redirected connection meets the old ones.
   */
  async apply(egress: Egress): Promise<void> {
    const domains = domainsOf(egress.allowOut);
    if (domains.length > 0) this.proxy ??= EgressProxy.start(this.tools, this.netns, this.hosts);
    (await this.proxy)?.setDomains(domains);
    await this.load(egressRules(egress));
  }

  private load(rules: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.tools.nsenter, [`--net=${this.netns}`, "--", this.tools.iptablesRestore], { stdio: ["pipe", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => void (stderr += d.toString()));
      child.once("error", reject);
      child.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`loading the egress rules failed (exit ${code}): ${stderr.trim()}`))));
      child.stdin.end(rules);
    });
  }

  stop(): void {
    void this.proxy?.then((p) => p.stop(), () => undefined);
    this.slirp?.kill("SIGKILL");
    this.holder.kill("SIGKILL");
  }
}
