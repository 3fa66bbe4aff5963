/**
 * How the emulator reaches a port inside a sandbox that has its own network namespace: one helper
 * process per sandbox (bridge-script.ts), started at the first request for one of its ports. It
 * enters only the sandbox's network namespace (`nsenter --net`), so it still sees the host's file
 * system and listens on a Unix socket in a private host dir that the sandbox cannot see. Like the
 * sandbox's init, it dies with the emulator (parent-death signal) and is killed when the sandbox
 * stops.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Tools } from "../isolation/mode";
import { childReady } from "../child-ready";
import { BRIDGE_SCRIPT } from "./bridge-script";

export class PortBridge {
  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
  ) {}

  /** Starts the helper in the network namespace of the process `initPid` (host pid). */
  static start(tools: Pick<Tools, "setpriv" | "nsenter">, initPid: number): Promise<PortBridge> {
    // Short, so the socket path stays under the 108 bytes a Unix socket address may have.
    const dir = mkdtempSync(join(tmpdir(), "sbx-ports-"));
    const socketPath = join(dir, "s");
    const child = spawn(
      tools.setpriv,
      ["--pdeathsig", "KILL", "--", tools.nsenter, `--target=${initPid}`, "--net", "--", process.execPath, "-e", BRIDGE_SCRIPT, socketPath],
      { stdio: ["ignore", "pipe", "pipe"], env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" } },
    );
    const bridge = new PortBridge(child, dir);
    return childReady(child, () => true, "the port bridge").then(
      () => bridge,
      (err: unknown) => {
        void bridge.stop();
        throw err;
      },
    );
  }

  /** A stream to `port` on the sandbox's loopback, or undefined when nothing listens there. */
  dial(port: number): Promise<Socket | undefined> {
    return new Promise((resolve) => {
      const socket = connect(join(this.dir, "s"));
      const give = (value: Socket | undefined) => {
        socket.removeListener("error", onError).removeListener("close", onClose);
        resolve(value);
      };
      const onError = () => give(undefined);
      const onClose = () => give(undefined);
      socket.once("error", onError).once("close", onClose);
      socket.once("connect", () => socket.write(`${port}\n`));
      // Read exactly the answer byte, so nothing of the server's stream is taken.
      const onReadable = () => {
        const byte = socket.read(1) as Buffer | null;
        if (byte === null) return void socket.once("readable", onReadable);
        if (byte[0] !== 0x31) {
          socket.destroy();
          return give(undefined);
        }
        socket.on("error", () => undefined);
        give(socket);
      };
      socket.once("readable", onReadable);
    });
  }

  /** Kills the helper and removes its socket dir. */
  stop(): Promise<void> {
    const { child } = this;
    const gone = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => child.once("exit", () => r()));
    child.kill("SIGKILL");
    return gone.then(() => rmSync(this.dir, { recursive: true, force: true }));
  }
}
