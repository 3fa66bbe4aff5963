/** The emulator's stored shape of a sandbox (not the wire shape; see routes/sandbox-views.ts). */
import type { SandboxDefaults } from "../types";

/** The `network` object of a create request, stored as given. */
export interface NetworkConfig {
  allowPublicTraffic?: boolean | undefined;
  allowOut?: string[] | undefined;
  denyOut?: string[] | undefined;
  maskRequestHost?: string | undefined;
  rules?: Record<string, unknown> | undefined;
}

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
  /** At an automatic pause: keep the memory (true, the default) or only the files (`autoPauseMemory: false`). */
  autoPauseMemory?: boolean | undefined;
  /**
   * While paused: its memory was kept, so its processes are frozen and continue at resume; false
   * (or absent) means a filesystem-only pause, which a resume boots cold (docs/service.md#pause-and-resume).
   */
  memoryKept?: boolean | undefined;
  volumeMounts: MountRecord[];
  /** Host directory standing for the sandbox's `/`. */
  rootDir: string;
  logs: SandboxLogEntry[];
  /** The template's USER and WORKDIR, when a v2 build set them. */
  defaults?: SandboxDefaults | undefined;
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
