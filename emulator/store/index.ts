/** The emulator's state: one store per resource, sharing one data dir. */
import { chmodSync, mkdirSync } from "node:fs";
import type { Isolation } from "../envd/isolation/mode";
import { join } from "node:path";
import type { OperationLatency } from "../op-latency";
import { SandboxSlots } from "../team-limit";
import { DEFAULT_READY_TIMEOUT_MS } from "./build-commands";
import type { BuildHold } from "./build-hold";
import { deliveryOptions, WebhookDeliveries } from "../webhooks/deliveries";
import { DEFAULT_IMAGE_SETTINGS, ImageRoots, type ImageSettings } from "./image-roots";
import { LifecycleEventLog } from "./lifecycle-events";
import type { LifecycleSink } from "./lifecycle-types";
import { SandboxSnapshotStore } from "./sandbox-snapshots";
import { SandboxStore } from "./sandboxes";
import { SecretStore } from "./secrets";
import { TemplateStore } from "./templates";
import { VolumeStore } from "./volumes";
import { WebhookStore } from "./webhooks";

/** The stores every route works on. */
export interface Stores {
  sandboxes: SandboxStore;
  templates: TemplateStore;
  volumes: VolumeStore;
  /** Snapshots of sandboxes (POST /sandboxes/{id}/snapshots), with copies of their files. */
  snapshots: SandboxSnapshotStore;
  /** Team secrets (POST /secrets), values kept in memory only. */
  secrets: SecretStore;
  /** Sandbox lifecycle events (GET /events/sandboxes), fed by the sandbox and snapshot stores. */
  events: LifecycleEventLog;
  /** Lifecycle webhooks (POST /events/webhooks) and their deliveries, one per subscribed event. */
  webhooks: WebhookStore;
  deliveries: WebhookDeliveries;
  /** The one team's ID (a UUID per start). */
  teamID: string;
  /** The one user's ID (a UUID per start): `createdBy` of the templates it builds. */
  userID: string;
  /** Time added to the slow operations (../op-latency.ts). */
  latency: OperationLatency;
}

/** Options of `createStores`. */
export interface StoreOptions {
  /** Root of sandbox and volume files; must exist. */
  dataDir: string;
  /** Duration of a successful template build, in milliseconds. */
  buildDelayMs: number;
  teamID: string;
  userID: string;
  /** Base URL of the platform API, the audience of volume tokens (known once the server listens). */
  apiUrl: () => string;
  /** How long a build's ready command may keep failing, in ms. Default: the service's 10 minutes. */
  readyTimeoutMs?: number;
  /** How sandboxes are isolated. Default: none. */
  isolation?: Isolation;
  /** The team's concurrent-sandbox limit. Default: none. */
  sandboxLimit?: number | undefined;
  /** Time added to the slow operations. Default: none. */
  latency?: OperationLatency | undefined;
  /** Keeps builds from ending until released (./build-hold.ts). Default: none. */
  buildHold?: BuildHold | undefined;
  /** Waits between a failed webhook delivery attempt and the next, in ms. Default: the service's 10 s, 3 times. */
  webhookRetryDelaysMs?: readonly number[] | undefined;
  /** How long a delivery attempt waits for an answer, in ms. Default: 10 s. */
  webhookTimeoutMs?: number | undefined;
  /** Where FROM images come from (./image-roots.ts). Default: pulled from their registries. */
  images?: ImageSettings | undefined;
}

/** Creates the stores and the `sandboxes/` and `volumes/` dirs under `dataDir`. */
export function createStores(opts: StoreOptions): Stores {
  const sandboxesDir = join(opts.dataDir, "sandboxes");
  const volumesDir = join(opts.dataDir, "volumes");
  mkdirSync(sandboxesDir, { recursive: true });
  mkdirSync(volumesDir, { recursive: true });
  const isolation = opts.isolation ?? { mode: "none", reason: "not asked for" };
  // A sandbox's setup runs as an unprivileged host id: it must be able to pass through to its root.
  if (isolation.mode === "namespaces") for (const dir of [opts.dataDir, sandboxesDir, volumesDir]) chmodSync(dir, 0o711);
  // Template commands run only in isolated build sandboxes (build-sandbox.ts).
  const templates = new TemplateStore(opts.buildDelayMs, isolation.mode === "namespaces"
    ? { isolation, sandboxesDir, readyTimeoutMs: opts.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS }
    : undefined, opts.latency?.buildStepMs ?? 0, opts.buildHold,
    new ImageRoots(opts.dataDir, opts.images ?? DEFAULT_IMAGE_SETTINGS, isolation.mode === "namespaces" ? isolation.idBase : undefined));
  const snapshots = new SandboxSnapshotStore(join(opts.dataDir, "sandbox-snapshots"), (...change) => lifecycle(...change));
  const events = new LifecycleEventLog(opts.teamID, (templateID) => buildOf(templates, snapshots, templateID));
  const lifecycle: LifecycleSink = (...change) => void events.record(...change);
  const webhooks = new WebhookStore(opts.teamID);
  const deliveries = new WebhookDeliveries(webhooks, deliveryOptions(opts.webhookRetryDelaysMs, opts.webhookTimeoutMs));
  events.onRecorded((event) => deliveries.dispatch(event));
  return {
    // The sandbox store starts every sandbox, so it alone holds the team's limit (../team-limit.ts).
    sandboxes: new SandboxStore(sandboxesDir, isolation, { slots: new SandboxSlots(opts.sandboxLimit), latency: opts.latency, lifecycle }),
    templates,
    volumes: new VolumeStore(volumesDir, opts.teamID, opts.apiUrl, isolation),
    snapshots,
    secrets: new SecretStore(),
    events,
    webhooks,
    deliveries,
    teamID: opts.teamID,
    userID: opts.userID,
    latency: opts.latency ?? {},
  };
}

/** Stops every timer of every store. */
export function closeStores(stores: Stores): void {
  stores.sandboxes.close();
  stores.templates.close();
  stores.deliveries.close();
}

/** The build a sandbox of `templateID` runs (an event's `sandboxBuildId`): the template's last ready build, or the snapshot's last. */
function buildOf(templates: TemplateStore, snapshots: SandboxSnapshotStore, templateID: string): string {
  const template = templates.byID(templateID);
  if (template) return template.builds.filter((b) => b.status === "ready").at(-1)?.buildID ?? template.builds.at(-1)?.buildID ?? templateID;
  return snapshots.all().find((s) => s.templateID === templateID)?.builds.at(-1)?.buildID ?? templateID;
}
