/**
 * One sandbox's ports, as the proxy reaches them. With the sandbox's own network namespace, through
 * its port bridge (bridge.ts), started on first use; before the sandbox's first command has made
 * its namespaces, nothing can listen in it, so every port is closed. Without one (isolation `none`,
 * or a host without `ip`), a sandbox's port is the host's own loopback port: two sandboxes cannot
 * both serve 8000 there, and a sandbox's URL reaches whatever listens on the host's loopback at
 * that port, in a sandbox or not.
 */
import { connect, type Socket } from "node:net";
import type { SandboxRuntime } from "../../types";
import type { SandboxNamespace } from "../isolation/namespace";
import { PortBridge } from "./bridge";

/**
 * Local ports of the streams dialed to the host's loopback. A request that arrives from one of them
 * is the emulator calling itself (a sandbox URL naming the emulator's own port): answered as a
 * closed port rather than forwarded again, round and round.
 */
const ownDials = new Set<number>();

/** True when `socket` (a request's) comes from a stream this emulator dialed to its own port. */
export function isOwnDial(socket: Socket): boolean {
  const loopback = socket.remoteAddress === "127.0.0.1" || socket.remoteAddress === "::1" || socket.remoteAddress === "::ffff:127.0.0.1";
  return loopback && socket.remotePort !== undefined && ownDials.has(socket.remotePort);
}

/** Where a server in the sandbox may listen and still be reached: both loopbacks. */
const LOOPBACKS = ["127.0.0.1", "::1"];

export class SandboxPorts {
  private bridge: Promise<PortBridge> | undefined;
  private stopped = false;

  /** `namespace` gives the sandbox's namespaces if they were made, without making them. */
  constructor(private readonly namespace: () => Promise<SandboxNamespace> | undefined) {}

  /** A stream to `port` in the sandbox, or undefined when nothing there listens on it. */
  async dial(runtime: SandboxRuntime, port: number): Promise<Socket | undefined> {
    // A port no socket can have (0, 70000) is closed, as a failed dial is on the service.
    if (this.stopped || !Number.isInteger(port) || port < 1 || port > 65_535) return undefined;
    const isolation = runtime.isolation;
    if (isolation.mode === "none") return dialHost(port);
    const ns = await this.namespace()?.catch(() => undefined);
    if (!ns) return undefined;
    if (!ns.ownNetwork) return dialHost(port);
    this.bridge ??= PortBridge.start(isolation.tools, ns.pid).catch((err: unknown) => {
      this.bridge = undefined;
      throw err;
    });
    const bridge = await this.bridge.catch(() => undefined);
    return bridge?.dial(port);
  }

  /** Stops the bridge; later dials find every port closed. */
  async stop(): Promise<void> {
    this.stopped = true;
    const bridge = await this.bridge?.catch(() => undefined);
    await bridge?.stop();
  }
}

async function dialHost(port: number): Promise<Socket | undefined> {
  for (const host of LOOPBACKS) {
    const socket = await new Promise<Socket | undefined>((resolve) => {
      const s = connect({ host, port });
      s.once("error", () => resolve(undefined));
      s.once("connect", () => {
        s.removeAllListeners("error");
        const local = s.localPort;
        if (local !== undefined) {
          ownDials.add(local);
          s.once("close", () => ownDials.delete(local));
        }
        resolve(s);
      });
    });
    if (socket) return socket;
  }
  return undefined;
}
