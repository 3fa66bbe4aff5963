/** The emulator's stored shape of a sandbox (not the wire shape; see routes/sandbox-views.ts). */
import type { SandboxDefaults } from "../types";

/**
 * The `network` object of a create request, stored as given (rule domains lower-cased, a null
 * `allowPublicTraffic` left out). `httpsPorts` is fixed at creation; `dnsServers` is egress, replaced
 * by PUT .../network (docs/service.md#sandbox-fields-of-the-newest-sdks).
 */
export interface NetworkConfig {
  allowPublicTraffic?: boolean | undefined;
  allowOut?: string[] | undefined;
  denyOut?: string[] | undefined;
  maskRequestHost?: string | undefined;
  rules?: Record<string, unknown> | undefined;
  /** Ports the proxy reaches over TLS (never envd's). */
  httpsPorts?: number[] | undefined;
  /** IPv4 DNS servers allowed when `allowOut` names a domain; absent means the default 8.8.8.8. */
  dnsServers?: string[] | undefined;
}

/**
 * The network config after PUT .../network: the egress fields replaced whole (one left out is
 * cleared; `dnsServers` then means the default), what is fixed at creation (ingress, `httpsPorts`)
 * kept; none left at all is no config.
 */
export function updatedNetwork(current: NetworkConfig | undefined, egress: Pick<NetworkConfig, "allowOut" | "denyOut" | "rules" | "dnsServers">): NetworkConfig | undefined {
  const { allowPublicTraffic, maskRequestHost, httpsPorts } = current ?? {};
  const entries = Object.entries({ allowPublicTraffic, maskRequestHost, httpsPorts, ...egress }).filter(([, v]) => v !== undefined);
  return entries.length === 0 ? undefined : (Object.fromEntries(entries) as NetworkConfig);
}

/** What a pause saved: memory and files (`full`), or only the files (`filesystem`). */
export type PauseMode = "full" | "filesystem";

/** SandboxLogEntry of the API. */
export interface SandboxLogEntry {
  /** ISO 8601. */
  timestamp: string;
  message: string;
  level: "debug" | "info" | "warn" | "error";
  fields: Record<string, string>;
}

/** A resolved volume mount. */
export interface MountRecord {
  name: string;
  /** Sandbox path of the mount. */
  path: string;
  /** Host directory of the volume. */
  hostDir: string;
}

/** A sandbox, running or paused. */
export interface SandboxRecord {
  sandboxID: string;
  templateID: string;
  /** The template's alias, when it has one. */
  alias?: string | undefined;
  clientID: string;
  envdVersion: string;
  secure: boolean;
  envdAccessToken: string | null;
  trafficAccessToken: string | null;
  state: "running" | "paused";
  startedAt: Date;
  /** Expiry while running; the moment it paused while paused. */
  endAt: Date;
  cpuCount: number;
  memoryMB: number;
  diskSizeMB: number;
  metadata: Record<string, string>;
  /** Never echoed by the API. */
  envVars: Record<string, string>;
  network?: NetworkConfig | undefined;
  /** Null when the request did not set `allow_internet_access`. */
  allowInternetAccess: boolean | null;
  /** At endAt: pause (true) or kill (false). */
  autoPause: boolean;
  autoResume: boolean;
  /**
   * How long an auto-resume runs it, in ms: fixed at creation from the create's timeout (at least
   * 5 minutes, at most the plan's longest), not changed by later timeout updates (store/auto-resume.ts).
   */
  autoResumeTimeoutMs?: number | undefined;
  /** At an automatic pause: keep the memory (true, the default) or only the files (`autoPauseMemory: false`). */
  autoPauseMemory?: boolean | undefined;
  /**
   * While paused: its memory was kept, so its processes are frozen and continue at resume; false
   * (or absent) means a filesystem-only pause, which a resume boots cold (docs/service.md#pause-and-resume).
   */
  memoryKept?: boolean | undefined;
  /** While paused, once the pause finished: what it saved (SandboxDetail `pauseMode`). */
  pauseMode?: PauseMode | undefined;
  /**
   * While running: its guest agent (envd) is marked as not answering (POST /_emulator/sandboxes/{id}/envd),
   * which is what a pause's health probe sees. A cold boot clears it.
   */
  envdUnresponsive?: boolean | undefined;
  /** While paused: its snapshot was taken while the guest agent did not answer, so only a cold resume is allowed. */
  envdUnresponsiveAtPause?: boolean | undefined;
  volumeMounts: MountRecord[];
  /** Host directory standing for the sandbox's `/`. */
  rootDir: string;
  logs: SandboxLogEntry[];
  /** The template's USER and WORKDIR, when a v2 build set them. */
  defaults?: SandboxDefaults | undefined;
  /** Host dir of the image's files under the sandbox's own, when its template pulled one (image-roots.ts). */
  imageDir?: string | undefined;
}

/** Everything `SandboxStore.create` needs; the route has validated and resolved it all. */
export type NewSandboxInput = Omit<
  SandboxRecord,
  "sandboxID" | "clientID" | "envdAccessToken" | "trafficAccessToken" | "state" | "startedAt" | "endAt" | "rootDir" | "logs"
> & {
  /** Time to live, in milliseconds. */
  timeoutMs: number;
};

/** Longest time to live of a sandbox, in milliseconds (the Pro plan's 24 h). */
export const MAX_TIMEOUT_MS = 24 * 3600 * 1000;
/** Time to live when the create request names none, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 15_000;

/** The real service's not-found message for sandboxes. */
export function sandboxNotFound(sandboxID: string): string {
  return `Sandbox "${sandboxID}" doesn't exist or you don't have access to it`;
}

/** Appends an info line to a sandbox's log (GET /sandboxes/{id}/logs). */
export function addLog(record: SandboxRecord, message: string, fields: Record<string, string> = {}): void {
  const entry: SandboxLogEntry = { timestamp: new Date().toISOString(), message, level: "info", fields: { sandboxID: record.sandboxID, ...fields } };
  record.logs.push(entry);
}
