/**
 * The domain half of a sandbox's egress rules, as the service's egress proxy applies it (infra:
 * packages/orchestrator/pkg/tcpfirewall/handlers.go, domainHandler): a TCP connection the address
 * rules would refuse, to port 80 or 443, is sent here (an iptables REDIRECT in the sandbox's network
 * namespace: egress-rules.ts); its HTTP Host or TLS server name (egress-hostname.ts) is matched
 * against the `allowOut` domains; an allowed one is dialled by name, never at the address the sandbox
 * chose (so its own /etc/hosts cannot redirect an allowed name), and refused when the name resolves
 * to a private address; anything else is closed.
 *
 * Its listening sockets live in the sandbox's namespace (a helper made them there and handed them
 * over through Node's IPC channel), while the emulator dials from the host's own network and DNS.
 */
import { spawn } from "node:child_process";
import { lookup } from "node:dns/promises";
import { BlockList, connect, isIP, type Server, type Socket } from "node:net";
import { ALWAYS_DENIED, PROXY_PORTS } from "./egress-rules";
import { httpHostOf, matchesDomain, MAX_HEAD_BYTES, sniOf, type Sniffed } from "./egress-hostname";
import type { Tools } from "../isolation/mode";

/** How long a connection may take to send its name, in ms. */
const SNIFF_TIMEOUT_MS = 10_000;

/** Names resolved to fixed addresses before DNS (the emulator's `egressHosts`, as /etc/hosts). */
export type EgressHosts = Readonly<Record<string, string>>;

// Runs in the sandbox's network namespace: makes the two listeners and hands them to the emulator.
const HELPER = `
const net = require("node:net");
const ports = JSON.parse(process.argv[1]);
let sent = 0;
for (const [kind, port] of Object.entries(ports)) {
  const server = net.createServer();
  server.listen(port, "127.0.0.1", () => process.send(kind, server, () => { if (++sent === 2) process.exit(0); }));
}
`;

const denied = new BlockList();
for (const cidr of ALWAYS_DENIED) {
  const [net = "", bits = "32"] = cidr.split("/");
  denied.addSubnet(net, Number(bits));
}

export class EgressProxy {
  private domains: readonly string[] = [];

  private constructor(
    private readonly servers: Server[],
    private readonly hosts: EgressHosts,
  ) {}

  /** Listens in the namespace at `netns` (a path for `nsenter --net=`). */
  static start(tools: Pick<Tools, "setpriv" | "nsenter">, netns: string, hosts: EgressHosts = {}): Promise<EgressProxy> {
    const child = spawn(tools.setpriv, ["--pdeathsig", "KILL", "--", tools.nsenter, `--net=${netns}`, "--", process.execPath, "-e", HELPER, JSON.stringify(PROXY_PORTS)], {
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => void (stderr += d.toString()));
    const servers: Server[] = [];
    return new Promise((resolve, reject) => {
      child.on("message", (kind: string, handle: unknown) => {
        const server = handle as Server;
        const port = kind === "tls" ? 443 : 80;
        server.on("connection", (socket: Socket) => void proxy.handle(socket, port));
        servers.push(server);
      });
      const proxy = new EgressProxy(servers, hosts);
      child.once("exit", (code) => (servers.length === 2 ? resolve(proxy) : reject(new Error(`the egress proxy did not start (exit ${code}): ${stderr.trim()}`))));
    });
  }

  /** The `allowOut` domains connections are matched against from now on. */
  setDomains(domains: readonly string[]): void {
    this.domains = domains;
  }

  stop(): void {
    for (const server of this.servers) server.close();
  }

  private async handle(socket: Socket, port: 80 | 443): Promise<void> {
    socket.on("error", () => undefined);
    const sniffed = await sniff(socket, port === 443 ? sniOf : httpHostOf);
    const host = sniffed.name;
    if (!host || !this.domains.some((d) => matchesDomain(host, d))) return void socket.destroy();
    const address = await this.resolve(host);
    if (!address) return void socket.destroy();
    const upstream = connect({ host: address, port });
    upstream.on("error", () => socket.destroy());
    socket.on("close", () => upstream.destroy());
    upstream.once("connect", () => {
      upstream.write(sniffed.head);
      socket.pipe(upstream).pipe(socket);
      socket.resume();
    });
  }

  /** The first address of `host` outside the always-denied ranges (handlers.go, proxyWithIPVerification). */
  private async resolve(host: string): Promise<string | undefined> {
    const fixed = this.hosts[host];
    const found = fixed ? [{ address: fixed, family: isIP(fixed) }] : await lookup(host, { all: true }).catch(() => []);
    return found.find((a) => a.family === 4 && !denied.check(a.address, "ipv4"))?.address;
  }
}

/** Reads until `read` finds the name (or cannot); the bytes read are kept to send on. */
function sniff(socket: Socket, read: (head: Buffer) => Sniffed): Promise<{ name: string | undefined; head: Buffer }> {
  return new Promise((resolve) => {
    let head = Buffer.alloc(0);
    const done = (name: string | undefined) => {
      clearTimeout(timer);
      socket.removeListener("data", onData);
      socket.pause();
      resolve({ name, head });
    };
    const timer = setTimeout(() => done(undefined), SNIFF_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const name = read(head);
      if (name !== "more") done(name);
      else if (head.length >= MAX_HEAD_BYTES) done(undefined);
    };
    socket.on("data", onData);
    socket.once("close", () => done(undefined));
  });
}
