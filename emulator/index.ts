/**
 * The emulator: a local, stateful implementation of the sandbox service on one port. The platform
 * API (sandboxes, templates, volumes) and the in-sandbox API share one `node:http` server, so
 * `apiUrl` and `sandboxUrl` are the same origin.
 *
 *   const emu = await createEmulator({ buildDelayMs: 50 });
 *   // E2B_API_URL=emu.apiUrl E2B_SANDBOX_URL=emu.sandboxUrl E2B_API_KEY=emu.apiKey
 *   await emu.close();
 */
import { mkdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerOptions } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import type { Duplex } from "node:stream";
import { join } from "node:path";
import { CallLog, type CallRecord } from "./calls";
import { createDomainServer, parseDomain, type DomainName } from "./domain/server";
import type { LocalCa } from "./domain/certs";
import { createEnvdHandler } from "./envd";
import type { Isolation } from "./envd/isolation/mode";
import { detectIsolation } from "./envd/isolation/probe";
import { responseOn } from "./envd/ports/upgrade";
import { Faults, type FaultSettings } from "./faults";
import { validateLatency } from "./op-latency";
import { exchangeObserver } from "./exchanges";
import { text } from "./http";
import { newAccessToken, newApiKey, newUUID } from "./ids";
import { inventoryOf, sandboxesOf, templatesOf, volumesOf, type Inventory, type InventorySandbox, type InventoryTemplate, type InventoryVolume } from "./inventory";
import type { Credentials } from "./auth";
import { createRouter } from "./router";
import { BuildHold } from "./store/build-hold";
import type { ProcessLog } from "./page/process-log";
import { pageProcessLog, pageRoutes } from "./page/routes";
import { pageUrlOf } from "./page/static";
import { adminRoutes } from "./routes/admin";
import { sandboxListRoutes } from "./routes/sandbox-list";
import { sandboxRoutes } from "./routes/sandboxes";
import { sandboxResumeRoutes } from "./routes/sandbox-resume";
import { sandboxUpdateRoutes } from "./routes/sandbox-updates";
import { secretRoutes } from "./routes/secrets";
import { snapshotRoutes } from "./routes/snapshots";
import { templateBuildRoutes } from "./routes/template-builds";
import { teamRoutes } from "./routes/teams";
import { templateRoutes } from "./routes/templates";
import { unservedRoutes } from "./routes/unserved";
import { dashboardRoutes } from "./routes/dashboard";
import { volumeRoutes } from "./routes/volumes";
import { volumeContentRoutes } from "./volume-content/routes";
import type { EmulatorOptions } from "./options";
import { imageSettings } from "./image-settings";
import { withNetwork } from "./envd/network/uplink";
import type { ImagesMode } from "./store/image-roots";
import { sandboxEventRoutes } from "./routes/sandbox-events";
import { webhookRoutes } from "./routes/webhooks";
import { createListener } from "./server";
import { restoreInto, snapshotOf, type EmulatorSnapshot } from "./snapshot";
import type { LifecycleEvent } from "./store/lifecycle-events";
import type { WebhookDelivery } from "./webhooks/deliveries";
import { closeStores, createStores, type Stores } from "./store";

export type { CallRecord } from "./calls";
export type { Exchange, ExchangeObserver } from "./exchanges";
export type { FaultSettings } from "./faults";
export type { OperationLatency } from "./op-latency";
export type { Inventory, InventorySandbox, InventoryTemplate, InventoryVolume } from "./inventory";
export type { EmulatorSnapshot } from "./snapshot";
export type { Isolation } from "./envd/isolation/mode";
export type { SandboxLimits } from "./envd/limits";
export type { EmulatorOptions } from "./options";
export type { LifecycleEvent } from "./store/lifecycle-events";
export type { WebhookAttempt, WebhookDelivery } from "./webhooks/deliveries";

/** Read-only views of the emulator's state (snapshots; mutating them changes nothing). */
export interface EmulatorState {
  inventory(): Inventory;
  sandboxes(): InventorySandbox[];
  templates(): InventoryTemplate[];
  volumes(): InventoryVolume[];
  /** Every sandbox lifecycle event kept (7 days), oldest first, as GET /events/sandboxes shows them. */
  lifecycleEvents(): LifecycleEvent[];
  /** Every webhook delivery, oldest first, with its attempts (status or error of each) and state. */
  webhookDeliveries(): WebhookDelivery[];
}

/** A running emulator. */
export interface Emulator {
  /** Base URL of the platform API, e.g. `http://127.0.0.1:53127`. */
  apiUrl: string;
  /** The emulator's own page (`/_emulator/ui/`), signed in: the API key rides in the fragment, which no request carries. */
  pageUrl: string;
  /** Base URL of the in-sandbox API: the same origin (route by `E2b-Sandbox-Id` header). */
  sandboxUrl: string;
  /** With the `domain` option: the domain clients set (`E2B_DOMAIN`, `sandbox:domain`), its port included. */
  domain?: string;
  /** With the `domain` option: the PEM file of the CA to trust (`NODE_EXTRA_CA_CERTS`, `SSL_CERT_FILE`); removed by `close()`. */
  caFile?: string;
  apiKey: string;
  accessToken: string;
  /** Root of sandbox (`sandboxes/<id>/`) and volume (`volumes/<id>/`) files. */
  dataDir: string;
  /**
   * How sandboxes are isolated: `namespaces` (own users, `/`, process list; see envd/isolation) or
   * `none` (commands are host processes) with the reason.
   */
  isolation: Isolation;
  /** Where templates' FROM images come from (options.ts `images`), as its ready line says. */
  images: ImagesMode;
  server: Server;
  state: EmulatorState;
  /** The request log, oldest first; only records with `seq > since` when given. */
  calls(since?: number): CallRecord[];
  /** Replaces every fault setting (omitted ones turn off). Throws on an invalid setting. */
  setFaults(settings: FaultSettings): void;
  /** Lets builds held by `holdBuilds` end, and holds no later one. */
  releaseBuilds(): void;
  /** Holds builds again, as the `holdBuilds` option does, from their next end on. */
  holdBuilds(): void;
  /** Every template, volume and sandbox as JSON, for `EmulatorOptions.restore` (files are not kept). */
  snapshot(): EmulatorSnapshot;
  /**
   * A key rotation: a new API key becomes the one valid key (`apiKey` from now on, also returned), and
   * the old one is refused, as after the team made a key and deleted the old one.
   */
  rotateApiKey(): string;
  /** Stops timers, ends in-sandbox processes, closes the server; removes the data dir if it made it. Idempotent. */
  close(): Promise<void>;
}

/** The data dir's removal at close is retried: a sandbox's start may still be writing envd's /run/e2b files (envd/run-files.ts) as the tree goes (ENOTEMPTY). */
const REMOVE_RETRIES = { maxRetries: 5, retryDelay: 50 };

/** The body of GET /health. */
export const HEALTH_TEXT = "Health check successful";

/** Default duration of a successful template build, in milliseconds. */
export const DEFAULT_BUILD_DELAY_MS = 1500;

/** Starts an emulator listening on `host:port`; resolves once it accepts requests. */
/** How long the service keeps an idle keep-alive connection (the API's figure, the shorter of the two). */
export const SERVICE_IDLE_TIMEOUT_MS = 620_000;

export async function createEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const buildDelayMs = options.buildDelayMs ?? DEFAULT_BUILD_DELAY_MS;
  if (!(buildDelayMs >= 0)) throw new Error(`buildDelayMs must be 0 or more milliseconds, got ${buildDelayMs}`);
  const faults = new Faults(options.faults ?? {});
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), "sandbox-emulator-")));
  mkdirSync(dataDir, { recursive: true });
  const creds = { apiKey: options.apiKey ?? newApiKey(), accessToken: options.accessToken ?? newAccessToken() };
  let apiUrl = "";
  const { restore } = options;
  const [isolation, images] = [withNetwork(await detectIsolation(dataDir), options.sandboxNetwork), imageSettings(options)];
  const latency = validateLatency(options.latency ?? {});
  const buildHold = new BuildHold(options.holdBuilds === true);
  const stores = createStores({ dataDir, buildDelayMs, buildHold, readyTimeoutMs: options.readyTimeoutMs, sandboxLimit: options.sandboxLimit, latency, webhookRetryDelaysMs: options.webhookRetryDelaysMs, webhookTimeoutMs: options.webhookTimeoutMs, images, teamID: restore?.teamID ?? newUUID(), userID: restore?.userID ?? newUUID(), apiUrl: () => apiUrl, isolation });
  if (restore) restoreInto(stores, restore);
  const calls = new CallLog();
  const onExchange = exchangeObserver(options.onExchange);
  const processes = pageProcessLog(stores); // what the page shows of each command: envd tells it of each spawn
  const envd = createEnvdHandler({ directory: stores.sandboxes, onExchange, limits: options.limits, onSpawn: processes.record, egressHosts: options.egressHosts });
  const listener = createListener({ envd, router: createRouter(allRoutes(stores, faults, calls, creds, processes), creds), faults, calls, log: options.log, onExchange });
  // Only upgrades to a sandbox's port switch protocols (Node 24.9+; see envd/ports/upgrade.ts).
  const serverOptions: ServerOptions & { shouldUpgradeCallback?: (req: IncomingMessage) => boolean } = { shouldUpgradeCallback: (req) => envd.upgrades(req) };
  const { server, ca, domain } = await serverFor(options, serverOptions, listener);
  // The service keeps an idle connection for 620 s (API) and 640 s (envd); Node's default is 5 s (plus a 1 s buffer). A
  // client that idles longer than that (the vendor suite sleeps 6 s between calls) would reuse a socket
  // the emulator already closed and meet a reset the service never sends (infra: packages/api/main.go,
  // packages/envd/main.go, idleTimeout).
  server.keepAliveTimeout = SERVICE_IDLE_TIMEOUT_MS;
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => listener(req, responseOn(req, socket, head)));
  const port = await listen(server, options.port ?? domain?.port ?? 0, options.host ?? "127.0.0.1").catch(async (err: unknown) => {
    await ca?.remove();
    throw err;
  });
  const served = domain && `${domain.host}:${port}`;
  apiUrl = served ? `https://api.${served}` : `http://${urlHost(options.host ?? "127.0.0.1")}:${port}`;
  let closing: Promise<void> | undefined;
  const close = async () => {
    closeStores(stores);
    await envd.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await ca?.remove();
    if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true, ...REMOVE_RETRIES });
  };
  return {
    apiUrl, sandboxUrl: apiUrl, accessToken: creds.accessToken, dataDir, isolation, images: images.mode, server,
    get apiKey() { return creds.apiKey; }, // read at each use: `rotateApiKey` changes it
    get pageUrl() { return pageUrlOf(apiUrl, creds.apiKey); },
    rotateApiKey: () => (creds.apiKey = newApiKey()),
    ...(served && ca ? { domain: served, caFile: ca.caFile } : {}),
    state: stateOf(stores),
    calls: (since) => calls.since(since),
    setFaults: (settings) => faults.set(settings),
    releaseBuilds: () => buildHold.release(),
    holdBuilds: () => buildHold.hold(),
    snapshot: () => snapshotOf(stores),
    close: () => (closing ??= close()),
  };
}

/** `creds` is read at each request: a key rotation changes what the routes accept. */
function allRoutes(stores: Stores, faults: Faults, calls: CallLog, creds: Credentials, processes: ProcessLog) {
  return [
    // The service's health check answers 200 with a fixed text (infra: packages/api/internal/handlers/store.go, GetHealth).
    { method: "GET" as const, pattern: "/health", auth: "none" as const, handler: () => text(200, HEALTH_TEXT) },
    ...sandboxListRoutes(stores),
    ...sandboxRoutes(stores),
    ...sandboxUpdateRoutes(stores),
    ...sandboxResumeRoutes(stores),
    ...secretRoutes(stores, creds),
    ...snapshotRoutes(stores),
    ...templateRoutes(stores),
    ...templateBuildRoutes(stores),
    ...teamRoutes(stores, creds),
    ...volumeRoutes(stores),
    ...sandboxEventRoutes(stores),
    ...webhookRoutes(stores),
    ...volumeContentRoutes(stores.volumes),
    ...adminRoutes(stores, faults, calls),
    ...pageRoutes(stores, processes),
    ...dashboardRoutes(stores, creds),
    // Last: a route added above for one of these operations takes over from its 501.
    ...unservedRoutes(),
  ];
}

function stateOf(stores: Stores): EmulatorState {
  return {
    inventory: () => inventoryOf(stores),
    sandboxes: () => sandboxesOf(stores),
    templates: () => templatesOf(stores),
    volumes: () => volumesOf(stores),
    lifecycleEvents: () => stores.events.all(),
    webhookDeliveries: () => stores.deliveries.all(),
  };
}

/** The one server: plain http, or in domain mode https with its CA (a port in both the domain and `port` must agree). */
async function serverFor(options: EmulatorOptions, serverOptions: ServerOptions, listener: RequestListener): Promise<{ server: Server; ca?: LocalCa; domain?: DomainName }> {
  if (options.domain === undefined) return { server: createServer(serverOptions, listener) };
  const domain = parseDomain(options.domain);
  if (domain.port !== undefined && options.port !== undefined && domain.port !== options.port) {
    throw new Error(`the domain's port ${domain.port} and the port option ${options.port} differ: give the port in one of them`);
  }
  return { ...(await createDomainServer(domain.host, serverOptions, listener)), domain };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** A host as it goes in a URL: wildcard addresses become loopback, IPv6 literals get brackets. */
function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}
