/**
 * The team's sandbox lifecycle events (GET /events/sandboxes): one per change a store reports,
 * kept 7 days, oldest first in memory. Each sandbox execution (from a create or a resume to the next
 * pause or kill) has its own `sandboxExecutionId`. Listeners (the webhook deliveries) hear each
 * event as it is recorded, synchronously, and must not block (docs/service.md#lifecycle-events-and-webhooks).
 */
import { newUUID } from "../ids";
import type { ChangedSandbox, LifecycleChange, LifecycleEventType } from "./lifecycle-types";

/** How long an event is kept, as the service keeps them: 7 days. */
export const EVENT_RETENTION_MS = 7 * 24 * 3600 * 1000;
/** The `version` of every event; the newest payload the docs show. */
export const EVENT_VERSION = "v2";

/** `eventData.execution`, on killed and paused events. */
export interface SandboxExecution {
  started_at: string;
  vcpu_count: number;
  memory_mb: number;
  /** How long the execution ran, in milliseconds. */
  execution_time: number;
}

/** One event, as the API lists it and a webhook receives it. */
export interface LifecycleEvent {
  version: string;
  id: string;
  type: LifecycleEventType;
  eventData: { sandbox_metadata: Record<string, string>; execution?: SandboxExecution; [key: string]: unknown };
  sandboxBuildId: string;
  sandboxExecutionId: string;
  sandboxId: string;
  sandboxTeamId: string;
  sandboxTemplateId: string;
  timestamp: string;
}

/** What a list asks for; `types` empty means every type. */
export interface EventQuery {
  sandboxID?: string | undefined;
  types: readonly string[];
  orderAsc: boolean;
  offset: number;
  limit: number;
}

export class LifecycleEventLog {
  private events: LifecycleEvent[] = [];
  private readonly executions = new Map<string, string>();
  private readonly listeners: ((event: LifecycleEvent) => void)[] = [];

  /** `buildOf`: the build a sandbox of that template runs (its `sandboxBuildId`). */
  constructor(private readonly teamID: string, private readonly buildOf: (templateID: string) => string) {}

  /** Records a change and tells every listener. */
  record(change: LifecycleChange, sandbox: ChangedSandbox, data: Record<string, unknown> = {}): LifecycleEvent {
    const { sandboxID } = sandbox;
    if (change === "created" || change === "resumed" || !this.executions.has(sandboxID)) this.executions.set(sandboxID, newUUID());
    const executionID = this.executions.get(sandboxID)!;
    if (change === "killed") this.executions.delete(sandboxID);
    const ends = change === "killed" || change === "paused";
    const event: LifecycleEvent = {
      version: EVENT_VERSION, id: newUUID(), type: `sandbox.lifecycle.${change}`,
      eventData: { sandbox_metadata: { ...sandbox.metadata }, ...data, ...(ends ? { execution: executionOf(sandbox) } : {}) },
      sandboxBuildId: this.buildOf(sandbox.templateID), sandboxExecutionId: executionID, sandboxId: sandboxID,
      sandboxTeamId: this.teamID, sandboxTemplateId: sandbox.templateID, timestamp: new Date().toISOString(),
    };
    this.prune();
    this.events.push(event);
    for (const listener of this.listeners) listener(event);
    return event;
  }

  onRecorded(listener: (event: LifecycleEvent) => void): void {
    this.listeners.push(listener);
  }

  /** One page of the events kept, newest first unless `orderAsc` (ties keep the order they happened in). */
  list(q: EventQuery): LifecycleEvent[] {
    this.prune();
    const picked = this.events.filter((e) => (q.sandboxID === undefined || e.sandboxId === q.sandboxID) && (q.types.length === 0 || q.types.includes(e.type)));
    const ordered = q.orderAsc ? picked : picked.reverse();
    return ordered.slice(q.offset, q.offset + q.limit).map(copy);
  }

  /** Every event kept, oldest first (for the emulator's state API). */
  all(): LifecycleEvent[] {
    this.prune();
    return this.events.map(copy);
  }

  private prune(): void {
    const oldest = Date.now() - EVENT_RETENTION_MS;
    if (this.events[0] && Date.parse(this.events[0].timestamp) < oldest) this.events = this.events.filter((e) => Date.parse(e.timestamp) >= oldest);
  }
}

/** The execution that ends: a kill of a paused sandbox counts up to its pause. */
function executionOf(sandbox: ChangedSandbox): SandboxExecution {
  const end = sandbox.state === "paused" ? sandbox.endAt.getTime() : Date.now();
  return {
    started_at: sandbox.startedAt.toISOString(),
    vcpu_count: sandbox.cpuCount,
    memory_mb: sandbox.memoryMB,
    execution_time: Math.max(0, end - sandbox.startedAt.getTime()),
  };
}

function copy(event: LifecycleEvent): LifecycleEvent {
  return structuredClone(event);
}
