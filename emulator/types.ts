/**
 * The seam between the emulator's platform API (sandbox records, volumes, lifetimes) and its
 * in-sandbox API (processes and files). The platform side owns the records and the data dir; the
 * in-sandbox side only asks for a running sandbox by ID and hears when one stops.
 */
import type { Egress } from "./envd/network/egress-rules";
import type { Isolation } from "./envd/isolation/mode";

/** What the in-sandbox API needs to know of one running sandbox. */
export interface SandboxRuntime {
  sandboxID: string;
  /** The template it was started from, as the API reports it: envd's `E2B_TEMPLATE_ID`. */
  templateID: string;
  /** Created with `secure: true`: every in-sandbox call needs `X-Access-Token: envdAccessToken`. */
  secure: boolean;
  envdAccessToken: string | null;
  /** Set when created with `network.allowPublicTraffic: false`: every port but envd's needs it. */
  trafficAccessToken?: string | null | undefined;
  /** `network.maskRequestHost`: the Host a server in the sandbox sees (`${PORT}`: the port). */
  maskRequestHost?: string | undefined;
  /** `network.httpsPorts`: ports whose server the proxy reaches over TLS (its certificate not verified). */
  httpsPorts?: number[] | undefined;
  /**
   * Host directory that stands for the sandbox's `/`. Sandbox paths are mapped under it (a request
   * for `/home/user/x` touches `<rootDir>/home/user/x`), except volume mount points and, with
   * namespaces, the host's read-only system dirs (see envd/paths.ts).
   */
  rootDir: string;
  /** How the sandbox's commands are isolated: in their own namespaces, or not at all (host processes). */
  isolation: Isolation;
  /** Sandbox path of the default user's home, the default cwd: `/home/user`. */
  homePath: string;
  /** Volumes mounted into this sandbox; each `<rootDir><path>` is a link to the volume's host dir. */
  volumeMounts: { name: string; path: string; hostDir: string }[];
  /** The `envVars` of the create request, set in every process under envd's own (envd/sandbox-env.ts). */
  envVars: Record<string, string>;
  /** The template's USER and WORKDIR (v2 builds): the user and cwd of a call that names none. */
  defaults?: SandboxDefaults | undefined;
  /**
   * Host dir of the image's files, when the template pulled one: the sandbox's `/` is then an overlay
   * of them with `rootDir` over them, and its files are reached through its namespaces (envd/links.ts).
   */
  imageDir?: string;
  /** What it may reach (its create's or last PUT's egress rules): enforced where it has an uplink (envd/network/uplink.ts). */
  egress?: Egress;
}

/** A template's last USER and WORKDIR: the user and cwd of a call that names none. */
export interface SandboxDefaults {
  /** An account of the sandbox (envd/accounts.ts); one it lacks stands for `user`. */
  user: string;
  workdir: string;
}

export interface SandboxDirectory {
  /** The sandbox if it is running now; undefined when unknown, paused, expired or killed. */
  running(sandboxID: string): SandboxRuntime | undefined;
  /** Every running sandbox: a signed file URL that names none is matched against their tokens (envd/signing.ts). */
  allRunning(): SandboxRuntime[];
  /** Called when a sandbox stops running (killed, expired, paused) so its processes can be ended. */
  onStopped(listener: (sandboxID: string) => void): void;
  /**
   * Called when a sandbox pauses with its memory kept: its processes are frozen, not ended, and its
   * connections cut; the pause waits for the returned promise (docs/service.md#pause-and-resume).
   */
  onFrozen?(listener: (sandboxID: string) => Promise<void>): void;
  /** Called when such a sandbox resumes: its frozen processes continue; the resume waits for it. */
  onThawed?(listener: (sandboxID: string) => Promise<void>): void;
  /** Called when a running sandbox's egress rules change; the change's answer waits for it. */
  onNetworkChanged?(listener: (sandboxID: string) => Promise<void>): void;
  /** A request reached a sandbox that is not running: resumes it when its auto-resume allows. */
  resumeOnRequest?(sandboxID: string, request: ResumeRequest): Promise<ResumeOutcome>;
}

/** What a request to a paused sandbox shows of its credentials, for auto-resume. */
export interface ResumeRequest {
  port: number;
  /** `X-Access-Token`. */
  envdAccessToken?: string | undefined;
  /** `e2b-traffic-access-token`. */
  trafficAccessToken?: string | undefined;
}

/**
 * `denied`: the request lacked the credentials (the proxy answers 403 and the sandbox stays paused);
 * `limit`: the team is at its concurrent-sandbox limit (the proxy answers 429 with the API's `message`,
 * and the sandbox stays paused).
 */
export type ResumeOutcome = "resumed" | "denied" | "not-resumed" | { kind: "limit"; message: string };
