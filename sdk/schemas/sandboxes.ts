/**
 * Wire schemas of the Sandboxes area (POST /sandboxes, GET /sandboxes/{id}, GET /v2/sandboxes,
 * metrics, logs), in the API's casing. Unknown extra fields are accepted and dropped; the fields
 * below are checked. Times are RFC 3339 strings, sizes MiB, timeouts seconds.
 */
import { z } from "zod";
import { LogLevel } from "./common";

/**
 * Egress and ingress rules of a sandbox. `allowPublicTraffic` defaults to true on the service (the
 * newest spec lets it be null: the project's default). `httpsPorts` and `dnsServers` are the newest
 * SDKs' (docs/service.md#sandbox-fields-of-the-newest-sdks).
 */
export const Network = z.object({
  allowPublicTraffic: z.boolean().nullish(),
  /** CIDRs, bare IPs or domain names (`*.example.com` too). */
  allowOut: z.array(z.string()).optional(),
  /** CIDRs or IPs only; `0.0.0.0/0` denies all. */
  denyOut: z.array(z.string()).optional(),
  /** IPv4 DNS servers allowed when allowOut names a domain; left out, 8.8.8.8; `[]`, none. */
  dnsServers: z.array(z.string()).optional(),
  maskRequestHost: z.string().optional(),
  /** Ports the proxy reaches over TLS (never envd's 49983); fixed at creation. */
  httpsPorts: z.array(z.number().int()).optional(),
  /** Keys are DNS names or a leading wildcard (`*.example.com`), lower-cased by the service. */
  rules: z.record(z.string(), z.array(z.object({ transform: z.object({ headers: z.record(z.string(), z.string()).optional() }).optional() }))).optional(),
});
export type Network = z.infer<typeof Network>;

/**
 * Body of PUT /sandboxes/{id}/network: the egress rules of a running sandbox, replaced whole. Ingress
 * (allowPublicTraffic, maskRequestHost) is fixed at creation.
 */
export const NetworkUpdate = z.object({
  allowOut: z.array(z.string()).optional(),
  denyOut: z.array(z.string()).optional(),
  /** Left out, the service goes back to its default (8.8.8.8). */
  dnsServers: Network.shape.dnsServers,
  /** Per-domain header transforms; left out, the sandbox's are cleared. */
  rules: Network.shape.rules,
  allow_internet_access: z.boolean().optional(),
});
export type NetworkUpdate = z.infer<typeof NetworkUpdate>;

/** A volume (by name) mounted at an absolute, clean path. */
export const VolumeMount = z.object({ name: z.string(), path: z.string() });
export type VolumeMount = z.infer<typeof VolumeMount>;

/** What happens at `endAt`: `kill`, or `pause` (created with autoPause). */
export const Lifecycle = z.object({ autoResume: z.boolean(), onTimeout: z.enum(["kill", "pause"]) });
export type Lifecycle = z.infer<typeof Lifecycle>;

/** String-to-string metadata attached at creation; filterable in list. */
export const Metadata = z.record(z.string(), z.string());
export type Metadata = z.infer<typeof Metadata>;

export const SandboxState = z.enum(["running", "paused"]);
export type SandboxState = z.infer<typeof SandboxState>;

/** Body of POST /sandboxes. `timeout` is seconds (service default 15; must be > 0). */
export const NewSandbox = z.object({
  templateID: z.string(),
  timeout: z.number().int().optional(),
  autoPause: z.boolean().optional(),
  /** Default true; false needs autoPause true and no autoResume. */
  autoPauseMemory: z.boolean().optional(),
  autoResume: z.object({ enabled: z.boolean() }).optional(),
  secure: z.boolean().optional(),
  allow_internet_access: z.boolean().optional(),
  network: Network.optional(),
  metadata: Metadata.optional(),
  envVars: z.record(z.string(), z.string()).optional(),
  mcp: z.record(z.string(), z.unknown()).nullable().optional(),
  volumeMounts: z.array(VolumeMount).optional(),
});
export type NewSandbox = z.infer<typeof NewSandbox>;

/** Answer of create (201), connect (200/201) and resume. */
export const Sandbox = z.object({
  templateID: z.string(),
  sandboxID: z.string(),
  /** Deprecated. */
  clientID: z.string(),
  envdVersion: z.string(),
  alias: z.string().optional(),
  /** Secret. Set only for sandboxes created with `secure: true`; null otherwise. */
  envdAccessToken: z.string().nullish(),
  /** Secret. Set only when `network.allowPublicTraffic` is false. */
  trafficAccessToken: z.string().nullish(),
  /** Deprecated; null except on custom clusters. */
  domain: z.string().nullish(),
});
export type Sandbox = z.infer<typeof Sandbox>;

/**
 * One entry of POST /sandboxes/{id}/fork's 201 list: the fork made, or why it did not start (the
 * service's `{code, message}`, with an HTTP status as its code) (docs/service.md#sandbox-fork).
 */
export const ForkResult = z.object({
  sandbox: Sandbox.optional(),
  error: z.object({ code: z.number(), message: z.string() }).optional(),
});
export type ForkResult = z.infer<typeof ForkResult>;

/** One item of GET /v2/sandboxes. */
export const ListedSandbox = z.object({
  templateID: z.string(),
  sandboxID: z.string(),
  /** Deprecated. */
  clientID: z.string(),
  startedAt: z.string(),
  endAt: z.string(),
  cpuCount: z.number(),
  memoryMB: z.number(),
  diskSizeMB: z.number(),
  state: SandboxState,
  envdVersion: z.string(),
  alias: z.string().optional(),
  metadata: Metadata.optional(),
  volumeMounts: z.array(VolumeMount).optional(),
  /** True for a paused sandbox whose pause found its guest agent not answering: only a resume with `memory: false` is taken. */
  envdUnresponsiveAtPause: z.boolean().optional(),
});
export type ListedSandbox = z.infer<typeof ListedSandbox>;

/**
 * Answer of GET /sandboxes/{id}: a listed sandbox plus its access details. Running sandboxes, and
 * paused ones (then `endAt` is the pause time).
 */
export const SandboxDetail = ListedSandbox.extend({
  /** Secret; same rule as at creation. */
  envdAccessToken: z.string().nullish(),
  /** Null: not set explicitly at creation. */
  allowInternetAccess: z.boolean().nullish(),
  domain: z.string().nullish(),
  network: Network.optional(),
  lifecycle: Lifecycle.optional(),
  /**
   * What a paused sandbox's pause saved, once it finished: `full` (memory and files) or `filesystem`
   * (files only; the resume boots cold). Read as any string, so a mode added later does not break a read.
   */
  pauseMode: z.string().optional(),
});
export type SandboxDetail = z.infer<typeof SandboxDetail>;

/** Body of POST /sandboxes/{id}/pause: `memory` false keeps only the files; `requireHealthyGuest` refuses (503) a pause whose guest agent does not answer. */
export const PauseRequest = z.object({ memory: z.boolean().optional(), requireHealthyGuest: z.boolean().optional() });
export type PauseRequest = z.infer<typeof PauseRequest>;

/** Latest usage sample of one sandbox. Bytes, except cpuUsedPct (percent) and timestampUnix (s). */
export const SandboxMetric = z.object({
  timestampUnix: z.number(),
  cpuCount: z.number(),
  cpuUsedPct: z.number(),
  memUsed: z.number(),
  memTotal: z.number(),
  memCache: z.number(),
  diskUsed: z.number(),
  diskTotal: z.number(),
  /** Deprecated: use timestampUnix. Still always sent (the spec requires it). */
  timestamp: z.string(),
});
export type SandboxMetric = z.infer<typeof SandboxMetric>;

/** Answer of GET /sandboxes/metrics. */
export const SandboxMetrics = z.object({ sandboxes: z.record(z.string(), SandboxMetric) });
export type SandboxMetrics = z.infer<typeof SandboxMetrics>;

/** Answer of GET /sandboxes/{id}/logs. */
export const SandboxLogs = z.object({
  logs: z.array(z.object({ timestamp: z.string(), line: z.string() })),
  logEntries: z.array(
    z.object({
      timestamp: z.string(),
      message: z.string(),
      level: LogLevel,
      fields: z.record(z.string(), z.string()),
    }),
  ),
});
export type SandboxLogs = z.infer<typeof SandboxLogs>;
