/**
 * The sandbox lifecycle changes the service reports as events and webhook deliveries
 * (docs/service.md#lifecycle-events-and-webhooks). A leaf module: the sandbox and snapshot stores
 * name a change here, and the event log (./lifecycle-events.ts) turns it into the wire event.
 */

/** The changes, in the service's order of its event types. */
export const LIFECYCLE_CHANGES = ["created", "updated", "killed", "paused", "resumed", "checkpointed"] as const;
export type LifecycleChange = (typeof LIFECYCLE_CHANGES)[number];

/** `sandbox.lifecycle.<change>`: the `type` of an event and the names a webhook subscribes to. */
export type LifecycleEventType = `sandbox.lifecycle.${LifecycleChange}`;
export const LIFECYCLE_EVENT_TYPES: readonly LifecycleEventType[] = LIFECYCLE_CHANGES.map((c) => `sandbox.lifecycle.${c}` as const);

/** What the stores know of the sandbox that changed (a SandboxRecord has all of it). */
export interface ChangedSandbox {
  sandboxID: string;
  templateID: string;
  state: "running" | "paused";
  startedAt: Date;
  /** While paused: when it paused. */
  endAt: Date;
  cpuCount: number;
  memoryMB: number;
  metadata: Record<string, string>;
}

/** Where a store reports a change; `data` goes into the event's `eventData` beside the metadata. */
export type LifecycleSink = (change: LifecycleChange, sandbox: ChangedSandbox, data?: Record<string, unknown>) => void;
