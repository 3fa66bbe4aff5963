/** The options of `createEmulator` (./index.ts); every one has a default. */
import type { OperationLatency } from "./op-latency";
import type { EmulatorSnapshot } from "./snapshot";
import type { ExchangeObserver } from "./exchanges";
import type { FaultSettings } from "./faults";
import type { SandboxLimits } from "./envd/limits";
import type { ImagesMode } from "./store/image-roots";

/** Options of `createEmulator`; every one has a default. */
export interface EmulatorOptions {
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port; 0 picks a free one. Default 0. */
  port?: number;
  /** The one valid API key (`X-API-Key`). Default `e2b_` + 40 random hex, new at each start. */
  apiKey?: string;
  /** The one valid access token (`Authorization: Bearer`). Default `sk_e2b_` + 40 random hex, new at each start. */
  accessToken?: string;
  /** Duration of a successful template build, in milliseconds. Default 1500. */
  buildDelayMs?: number;
  /**
   * How long a template build's ready command may keep failing before the build fails, in
   * milliseconds. Default: the service's 10 minutes.
   */
  readyTimeoutMs?: number;
  /** Where sandbox roots and volumes live. Default: a fresh temp dir, removed by `close()`. A given dir is kept. */
  dataDir?: string;
  /** Fault switches at start; change them later with `setFaults` or POST /_emulator/faults. Default: none. */
  faults?: FaultSettings;
  /** Receives one line per request (`METHOD path status ms`) and internal errors. Default: silent. */
  log?: (line: string) => void;
  /**
   * Sees each platform request, and each plain HTTP request to envd, with the answer given (after it
   * is sent). For checking the emulator
   * against a spec; `SANDBOX_EMULATOR_EXCHANGES=<dir>` adds one that writes NDJSON files. Default: none.
   */
  onExchange?: ExchangeObserver;
  /** What each sandbox may use (processes at once, file size); see envd/limits.ts. Default: 1024 processes, 1 GiB. */
  limits?: Partial<SandboxLimits>;
  /**
   * The team's concurrent-sandbox limit: a create (or resume) that would pass it is refused with the
   * service's 429 (./team-limit.ts). Default: no limit (the service's plans have 20 or 100).
   */
  sandboxLimit?: number;
  /** Time added to create, connect, kill and each build step (./op-latency.ts). Default: none. */
  latency?: OperationLatency;
  /**
   * Builds run their steps, then stay `building` until `releaseBuilds()` (store/build-hold.ts): for a
   * test that must find a build still running, whatever the machine's speed. Default: false.
   */
  holdBuilds?: boolean;
  /** State to start with, from `emulator.snapshot()` (see ./snapshot.ts): same IDs, same team. Default: only `base`. */
  restore?: EmulatorSnapshot;
  /**
   * Serve a domain, as the service does (./domain/server.ts): https on the one listener, for
   * `api.<domain>` and `<port>-<sandboxID>.<domain>`, with a CA made at start (`caFile`). A host name
   * (`localhost`: names under it are loopback, RFC 6761), optionally with the port to listen on.
   * Default: plain http, reached by URL (`apiUrl`, `sandboxUrl`).
   */
  domain?: string;
  /**
   * The waits between a failed webhook delivery attempt and its retries, in ms: one retry per entry
   * (webhooks/deliveries.ts). Default: the service's `[10000, 10000, 10000]`; tests shorten it.
   */
  webhookRetryDelaysMs?: readonly number[];
  /** How long a webhook delivery attempt waits for an answer before it counts as failed, in ms. Default 10000. */
  webhookTimeoutMs?: number;
  /**
   * Where a template's FROM image comes from (store/image-roots.ts): `registry` pulls it (a failed
   * pull fails the build), `registry-or-host` pulls it and falls back to the host's system dirs,
   * `host` never pulls. Default: `$SANDBOX_EMULATOR_IMAGES`, else `registry`.
   */
  images?: ImagesMode;
  /** A registry host (`docker.io` for Docker Hub) → the host to pull its images from instead. Default: none. */
  registryMirrors?: Record<string, string>;
  /** Registry hosts spoken to over plain http (loopback always is). Default: none. */
  insecureRegistries?: string[];
  /**
   * Names a sandbox's egress resolves to fixed IPv4 addresses before DNS, as /etc/hosts would
   * (`--add-host name=ip`): where an `allowOut` domain is dialled (envd/network/egress-proxy.ts).
   * Default: none.
   */
  egressHosts?: Record<string, string>;
  /**
   * A sandbox's network: `uplink` (the default, where slirp4netns and iptables-restore are installed)
   * reaches out under its egress rules; `loopback` is its own loopback alone, whatever its rules say
   * (envd/network/uplink.ts).
   */
  sandboxNetwork?: "uplink" | "loopback";
}
