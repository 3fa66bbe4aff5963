/**
 * A short-lived build sandbox: the template's tree so far written into a fresh root, the same
 * namespaces as a sandbox's (../envd/isolation), commands run in it as the service's builder runs
 * them through envd (`/bin/bash -l -c <command>` as the step's user, in its WORKDIR, with its ENV:
 * infra: packages/orchestrator/pkg/template/build/sandboxtools/command.go), and its files read back
 * into a tree when it is done (tree-read.ts). Only made where sandboxes are isolated: the emulator
 * never runs a template's commands as plain host processes.
 */
import { spawn } from "node:child_process";
import { randomHex } from "../ids";
import type { Account } from "../envd/accounts";
import { OPEN_EGRESS } from "../envd/network/egress-rules";
import { hostId, ownerId, ownerName, systemView } from "../envd/isolation/layout";
import type { Isolation } from "../envd/isolation/mode";
import { SandboxNamespace } from "../envd/isolation/namespace";
import { viewPlan } from "../envd/isolation/view-plan";
import { createSandboxRoot, removeSandboxRoot } from "./sandbox-fs";
import { fillSandboxRoot } from "./template-fill";
import type { TemplateResult, TreeNode } from "./template-tree";
import { readTree } from "./tree-read";

type Namespaces = Isolation & { mode: "namespaces" };

/** What a command runs as and in: the build's USER, WORKDIR and ENV at that step. */
export interface CommandContext {
  user: Account;
  workdir: string;
  env: Record<string, string>;
}

/** Receives each non-empty output line, trimmed, as the service logs them. */
export type OutputSink = (stream: "stdout" | "stderr", line: string) => void;

/** The PATH of a login shell in E2B's base image; the builder appends it to a PATH the ENV set. */
export const STANDARD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/** Sandbox paths the layout makes, not the template: never read back. */
const LAYOUT_ONLY = new Set(["/proc", "/dev"]);

export class BuildSandbox {
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly isolation: Namespaces,
    private readonly rootDir: string,
    private readonly ns: SandboxNamespace,
    /** Its `/` is an image's files under `rootDir` (build-image.ts): what a command changed is all in `rootDir`. */
    private readonly onImage: boolean,
  ) {}

  /** A build sandbox over `result`'s tree, its root made under `sandboxesDir`. */
  static async open(isolation: Namespaces, sandboxesDir: string, result: TemplateResult): Promise<BuildSandbox> {
    const rootDir = createSandboxRoot(sandboxesDir, `build-${randomHex(8)}`, [], isolation, result.image !== undefined);
    try {
      await fillSandboxRoot(rootDir, result, [], (owner) => hostId(isolation, ownerId(owner)));
      // A build reaches the network without rules of its own (infra: phases/base/builder.go, "nil network = no restrictions").
      const ns = await SandboxNamespace.start(isolation, viewPlan(isolation, { rootDir, imageDir: result.image?.dir, volumes: [], egress: OPEN_EGRESS }));
      return new BuildSandbox(isolation, rootDir, ns, result.image !== undefined);
    } catch (err) {
      removeSandboxRoot(rootDir);
      throw err;
    }
  }

  /**
   * Runs `command` to its end; resolves with envd's end status: "" for exit 0, else
   * "exit status N" (or "signal: killed"), the words the builder's failure message carries.
   */
  run(command: string, ctx: CommandContext, sink: OutputSink): Promise<string> {
    const { name, home } = ctx.user;
    const env = { ...ctx.env };
    if (env.PATH !== undefined) env.PATH += `:${STANDARD_PATH}`;
    const launch = this.ns.launch({ uid: ctx.user.uid, gid: ctx.user.gid }, ctx.workdir, ["/bin/bash", "-l", "-c", command]);
    const child = spawn(launch.file, launch.args, {
      cwd: "/",
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: STANDARD_PATH, HOME: home, USER: name, LOGNAME: name, ...env },
    });
    const lines = (stream: "stdout" | "stderr") => (chunk: Buffer) => {
      // Split per chunk, as the builder does with each data event of the stream.
      for (const line of chunk.toString().split("\n")) if (line.trim() !== "") sink(stream, line.trim());
    };
    child.stdout.on("data", lines("stdout"));
    child.stderr.on("data", lines("stderr"));
    return new Promise((resolve) => {
      child.once("error", (err) => resolve(`exec: ${err.message}`));
      child.once("close", (code, signal) => resolve(code === 0 ? "" : code !== null ? `exit status ${code}` : `signal: ${SIGNAL_WORDS[signal ?? ""] ?? signal}`));
    });
  }

  /** Ends every process and reads the files back: the tree the next step starts from. */
  async harvest(): Promise<Map<string, TreeNode>> {
    await this.ns.stop();
    const view = this.onImage ? { links: [], binds: [] } : systemView();
    return readTree(this.rootDir, {
      skip: new Set([...LAYOUT_ONLY, ...view.links.map((l) => l.path)]),
      bare: new Set(view.binds.map((b) => b.sandboxPath)),
      owner: (uid) => ownerName(this.isolation, uid),
    });
  }

  /** Ends every process and removes the root; later calls wait for the first. */
  close(): Promise<void> {
    this.closing ??= this.ns.stop().then(() => removeSandboxRoot(this.rootDir));
    return this.closing;
  }

  /** Closes the sandbox when `signal` aborts (the build was cancelled); returns the undo. */
  closeOn(signal: AbortSignal): () => void {
    const stop = () => void this.close();
    signal.addEventListener("abort", stop, { once: true });
    return () => signal.removeEventListener("abort", stop);
  }
}

/** How Go's os.ProcessState names the signals a command usually dies of. */
const SIGNAL_WORDS: Record<string, string> = { SIGKILL: "killed", SIGTERM: "terminated", SIGINT: "interrupt", SIGSEGV: "segmentation fault" };

