/**
 * Sandboxes, in memory, with their lifetimes: a running sandbox expires at `endAt` (killed, or
 * paused when created with autoPause), pause keeps its files, connect resumes it, kill removes it.
 * This store is also the emulator's `SandboxDirectory`: the in-sandbox API asks it which sandboxes
 * run and hears when one stops. It is the one place a sandbox starts (create, and resume however
 * asked for), so every start takes a slot of the team's limit here (../team-limit.ts).
 */
import type { Isolation } from "../envd/isolation/mode";
import { setTimeout as sleep } from "node:timers/promises";
import { ApiError } from "../http";
import { newSandboxID, randomHex } from "../ids";
import { operationDelay, type OperationLatency } from "../op-latency";
import type { SandboxSlots } from "../team-limit";
import type { ResumeOutcome, ResumeRequest, SandboxDirectory, SandboxRuntime } from "../types";
import { resumeOnRequest } from "./auto-resume";
import { autoPauseKeepsMemory, markAgent, pauseRefusal, resumeRefusal } from "./guest-agent";
import { SandboxEvents, type SandboxListener } from "./sandbox-events";
import { createSandboxRoot, removeSandboxRoot } from "./sandbox-fs";
import type { LifecycleSink } from "./lifecycle-types";
import { addLog, sandboxNotFound, updatedNetwork, type NetworkConfig, type NewSandboxInput, type SandboxRecord } from "./sandbox-records";
import { runtimeOf } from "./sandbox-runtime";

/** How long a pause or resume lasts at least, in ms: the window in which further calls join it. */
const TRANSITION_MS = 100;

/** The sandboxes and their expiry timers (one per running sandbox). */
export class SandboxStore implements SandboxDirectory {
  private readonly sandboxes = new Map<string, SandboxRecord>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly events = new SandboxEvents();
  /** Pauses under way (see pause), and resumes under way (see connect). */
  private readonly pausing = new Map<string, Promise<void>>();
  private readonly resuming = new Map<string, Promise<SandboxRecord>>();

  /**
   * `sandboxesDir`: where sandbox roots are made (`<dataDir>/sandboxes`); `starts`: the team's limit
   * (none by default) and the time a create takes (its `createMs`); `lifecycle`: hears every change
   * the lifecycle events report (./lifecycle-types.ts), from this one place per change.
   */
  constructor(
    private readonly sandboxesDir: string,
    private readonly isolation: Isolation = { mode: "none", reason: "not asked for" },
    private readonly starts: { slots?: SandboxSlots; latency?: OperationLatency | undefined; lifecycle?: LifecycleSink } = {},
  ) {}

  /** The team's concurrent-sandbox limit; undefined when there is none. */
  get sandboxLimit(): number | undefined {
    return this.starts.slots?.limit;
  }

  /**
   * Starts a new sandbox in a slot of the team's limit, held while it starts (its added `createMs`),
   * so creates in flight count: a 429 with the service's message when none is free.
   */
  create(input: NewSandboxInput): Promise<SandboxRecord> {
    return this.inSlot(async () => {
      await operationDelay(this.starts.latency ?? {}, "createMs");
      return this.add(input);
    });
  }

  private add(input: NewSandboxInput): SandboxRecord {
    const { timeoutMs, ...rest } = input;
    const sandboxID = newSandboxID();
    const now = new Date();
    const record: SandboxRecord = {
      ...rest,
      sandboxID,
      clientID: randomHex(4),
      envdAccessToken: input.secure ? randomHex(32) : null,
      trafficAccessToken: input.network?.allowPublicTraffic === false ? randomHex(32) : null,
      state: "running",
      startedAt: now,
      endAt: new Date(now.getTime() + timeoutMs),
      rootDir: createSandboxRoot(this.sandboxesDir, sandboxID, input.volumeMounts, this.isolation, input.imageDir !== undefined),
      logs: [],
    };
    this.sandboxes.set(sandboxID, record);
    addLog(record, "Sandbox created", { templateID: record.templateID });
    addLog(record, `envd ${record.envdVersion} started`);
    this.schedule(record);
    this.starts.lifecycle?.("created", record);
    return record;
  }

  /**
   * Puts back a sandbox from a snapshot (../snapshot.ts), under its own ID: a fresh root with its
   * mount links (files are not part of a snapshot) and, when running, its expiry timer.
   */
  restore(record: Omit<SandboxRecord, "rootDir">): SandboxRecord {
    const restored: SandboxRecord = { ...record, rootDir: createSandboxRoot(this.sandboxesDir, record.sandboxID, record.volumeMounts, this.isolation, record.imageDir !== undefined) };
    this.sandboxes.set(restored.sandboxID, restored);
    if (restored.state === "running") this.schedule(restored);
    return restored;
  }

  /** The sandbox, running or paused; a 404 with the real message otherwise. */
  get(sandboxID: string): SandboxRecord {
    const record = this.sandboxes.get(sandboxID);
    if (!record) throw new ApiError(404, sandboxNotFound(sandboxID));
    return record;
  }

  all(): SandboxRecord[] {
    return [...this.sandboxes.values()];
  }

  /** How many run now: what the team's concurrent-sandbox limit counts (paused ones do not). */
  runningCount(): number {
    let n = 0;
    for (const record of this.sandboxes.values()) if (record.state === "running") n++;
    return n;
  }

  /** Kills a running sandbox or deletes a paused one, with its files. */
  kill(sandboxID: string): void {
    const record = this.get(sandboxID);
    this.unschedule(sandboxID);
    this.sandboxes.delete(sandboxID);
    removeSandboxRoot(record.rootDir);
    this.starts.lifecycle?.("killed", record);
    // A sandbox paused with its memory still has (frozen) processes to end.
    if (record.state === "running" || record.memoryKept) void this.events.emit("stopped", sandboxID);
  }

  /**
   * Pauses a running sandbox, keeping its memory (its processes freeze) or, with `keepMemory`
   * false, only its files (its processes end). The pause is a transition that lasts at least
   * TRANSITION_MS, as the service's snapshot takes time: pause calls that meet it join it and answer
   * as it does (204), and only a pause of a sandbox already paused is a 409
   * (docs/service.md#pause-and-resume). Once it is done, `pauseMode` says what it saved. While the
   * guest agent does not answer, some pauses are refused (./guest-agent.ts).
   */
  pause(sandboxID: string, keepMemory = true, opts: { requireHealthyGuest?: boolean | undefined } = {}): Promise<void> {
    const inFlight = this.pausing.get(sandboxID);
    if (inFlight) return inFlight;
    const record = this.get(sandboxID);
    if (record.state === "paused") {
      return Promise.reject(new ApiError(409, `Error pausing sandbox - sandbox '${sandboxID}' is already paused`));
    }
    const refused = pauseRefusal(record, keepMemory, opts.requireHealthyGuest);
    if (refused) return Promise.reject(refused);
    this.unschedule(sandboxID);
    record.state = "paused";
    record.endAt = new Date();
    record.memoryKept = keepMemory;
    record.pauseMode = undefined;
    record.envdUnresponsiveAtPause = record.envdUnresponsive ? true : undefined;
    addLog(record, "Sandbox paused");
    this.starts.lifecycle?.("paused", record);
    const done = Promise.all([this.events.emit(keepMemory ? "frozen" : "stopped", sandboxID), sleep(TRANSITION_MS)]).then(() => {
      this.pausing.delete(sandboxID);
      if (record.state === "paused") record.pauseMode = keepMemory ? "full" : "filesystem";
    });
    this.pausing.set(sandboxID, done);
    return done;
  }

  /** Marks a running sandbox's guest agent as answering or not, as a pause sees it (./guest-agent.ts). */
  setEnvdResponsive(sandboxID: string, responsive: boolean): void {
    markAgent(this.get(sandboxID), responsive);
  }

  /**
   * Connect: a running sandbox only ever gets a later `endAt`; a paused one resumes with
   * `endAt = now + timeoutMs`, after a pause still under way. A memory pause resumes with its
   * processes continuing, unless `keepMemory` is false, which boots it cold (they end; the next
   * command starts a new boot). Returns whether it was resumed. A resume takes a slot of the team's
   * limit as a create does (the service starts it through the same reservation): a 429 when none is
   * free, and the sandbox stays paused.
   */
  async connect(sandboxID: string, timeoutMs: number, opts: { keepMemory?: boolean | undefined } = {}): Promise<{ record: SandboxRecord; resumed: boolean }> {
    await this.pausing.get(sandboxID);
    const record = this.get(sandboxID);
    const until = Date.now() + timeoutMs;
    if (record.state === "running") {
      if (until > record.endAt.getTime()) this.setEnd(record, until);
      return { record, resumed: false };
    }
    // Restoring that memory would bring the unresponsive agent back: only a cold resume is taken.
    const refused = resumeRefusal(record, opts.keepMemory);
    if (refused) throw refused;
    const resuming = this.resuming.get(sandboxID);
    if (resuming) return { record: await resuming, resumed: true };
    const done = this.resume(record, until, opts.keepMemory !== false).finally(() => this.resuming.delete(sandboxID));
    this.resuming.set(sandboxID, done);
    return { record: await done, resumed: true };
  }

  /**
   * Brings a paused sandbox back; concurrent resumes of one sandbox share this (connect). Like a
   * pause it lasts at least TRANSITION_MS, so resumes that arrive together meet it and join it.
   */
  private resume(record: SandboxRecord, until: number, keepMemory: boolean): Promise<SandboxRecord> {
    return this.inSlot(async () => {
      const processes = record.memoryKept ? this.events.emit(keepMemory ? "thawed" : "stopped", record.sandboxID) : undefined;
      await Promise.all([processes, sleep(TRANSITION_MS)]);
      // A cold boot starts a new guest agent, which answers.
      if (!record.memoryKept || !keepMemory) record.envdUnresponsive = undefined;
      record.memoryKept = undefined;
      record.pauseMode = undefined;
      record.envdUnresponsiveAtPause = undefined;
      record.state = "running";
      record.startedAt = new Date();
      addLog(record, "Sandbox resumed");
      this.setEnd(record, until);
      this.starts.lifecycle?.("resumed", record);
      return record;
    });
  }

  /** Runs a start in a reserved slot; without a limit, just runs it. */
  private inSlot(start: () => Promise<SandboxRecord>): Promise<SandboxRecord> {
    return this.starts.slots ? this.starts.slots.withSlot(this.runningCount(), start) : start();
  }

  /** Sets a running sandbox's time to live from now; 0 or less expires it at once. */
  setTimeout(sandboxID: string, timeoutMs: number): void {
    const record = this.get(sandboxID);
    if (record.state !== "running") throw new ApiError(404, sandboxNotFound(sandboxID));
    if (timeoutMs <= 0) return this.expire(record);
    this.setEnd(record, Date.now() + timeoutMs);
    this.starts.lifecycle?.("updated", record, { set_timeout: record.endAt.toISOString() });
  }

  /**
   * Refresh: extends a running sandbox's time to live to at least `now + durationMs`, never
   * shortening it (the real handler's KeepAliveFor with allowShorter=false).
   */
  refresh(sandboxID: string, durationMs: number): void {
    const record = this.get(sandboxID);
    if (record.state !== "running") throw new ApiError(404, sandboxNotFound(sandboxID));
    const until = Date.now() + durationMs;
    if (until > record.endAt.getTime()) this.setEnd(record, until);
  }

  /**
   * Replaces a running sandbox's egress rules (a field left out is cleared: ./sandbox-records.ts
   * updatedNetwork); 409 while paused. Resolves once its firewall has them (the `network` listeners).
   */
  async updateNetwork(sandboxID: string, egress: Pick<NetworkConfig, "allowOut" | "denyOut" | "rules" | "dnsServers">, allowInternetAccess?: boolean): Promise<void> {
    const record = this.get(sandboxID);
    if (record.state !== "running") throw new ApiError(409, `Sandbox '${sandboxID}' cannot update its network while paused`);
    record.network = updatedNetwork(record.network, egress);
    if (allowInternetAccess !== undefined) record.allowInternetAccess = allowInternetAccess;
    addLog(record, "Sandbox network updated");
    this.starts.lifecycle?.("updated", record);
    await this.events.emit("network", sandboxID);
  }

  running(sandboxID: string): SandboxRuntime | undefined {
    const record = this.sandboxes.get(sandboxID);
    return record?.state === "running" ? runtimeOf(record, this.isolation) : undefined;
  }

  allRunning(): SandboxRuntime[] {
    return [...this.sandboxes.keys()].flatMap((id) => this.running(id) ?? []);
  }

  // What the in-sandbox side hears (./sandbox-events.ts).
  readonly onStopped = (listener: SandboxListener): void => this.events.on("stopped", listener);
  readonly onFrozen = (listener: SandboxListener): void => this.events.on("frozen", listener);
  readonly onThawed = (listener: SandboxListener): void => this.events.on("thawed", listener);
  readonly onNetworkChanged = (listener: SandboxListener): void => this.events.on("network", listener);

  resumeOnRequest(sandboxID: string, request: ResumeRequest): Promise<ResumeOutcome> {
    return resumeOnRequest(this, sandboxID, request);
  }

  /** Stops every expiry timer; records and files stay (the data dir owner removes them). */
  close(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private setEnd(record: SandboxRecord, until: number): void {
    record.endAt = new Date(until);
    this.schedule(record);
  }

  private schedule(record: SandboxRecord): void {
    this.unschedule(record.sandboxID);
    const delay = Math.max(0, record.endAt.getTime() - Date.now());
    this.timers.set(record.sandboxID, setTimeout(() => this.expire(record), delay).unref());
  }

  private unschedule(sandboxID: string): void {
    clearTimeout(this.timers.get(sandboxID));
    this.timers.delete(sandboxID);
  }

  /** At `endAt`: killed, or paused when created with autoPause (what it keeps: ./guest-agent.ts). */
  private expire(record: SandboxRecord): void {
    if (record.autoPause) void this.pause(record.sandboxID, autoPauseKeepsMemory(record)).catch(() => undefined);
    else this.kill(record.sandboxID);
  }
}
