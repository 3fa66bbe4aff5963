/**
 * The pace of waiting for a template build: how long to pause before the next status request.
 *
 * A build's own log says how far it is. The service's builder (infra: orchestrator/pkg/template/build)
 * runs its phases in order, each logging an entry tagged with its `step`: `base`, then `1`…`N`,
 * then `finalize` and `optimize`; a step's first line counts it (`[builder 3/3] RUN …`, so the last
 * step is known as such); when it returns it logs "Build finished, took 6s" (or "Build failed: …")
 * with no step. The API learns of the end on its next poll of the builder, once a
 * second (api/internal/template-manager/template_status.go), and only then answers `ready`.
 * So the wait asks slowly while steps run, faster from the last step on, and fastest in the
 * second between the builder's last line and `ready`: prompt where it matters, cheap elsewhere
 * (bench/RESULTS.md, 3). A 429 slows every later pause down, and the next one lasts at least the
 * Retry-After the service asked for.
 */
import type { BuildLogEntry } from "../schemas/templates";

/** How far a build is: steps still running, the last phases, or the builder already done. */
export type BuildStage = "running" | "finalizing" | "finished";

/** Default pause while steps run (ms); also what `intervalMs` sets. */
export const BUILD_RUNNING_PAUSE_MS = 1000;
/** Pause from the last step on: then finalize (start and ready commands, snapshot, upload). */
export const BUILD_FINALIZING_PAUSE_MS = 250;
/** Pause between the builder's last line and `ready`: at most about a second on the service. */
export const BUILD_FINISHED_PAUSE_MS = 100;
/** Ceiling of a pause slowed down by 429s. */
export const BUILD_MAX_PAUSE_MS = 10_000;
/** Pause after a 429 that came without a Retry-After, before the slowdown factor. */
const THROTTLED_PAUSE_MS = 1000;

const LAST_PHASES: ReadonlySet<string> = new Set(["finalize", "optimize"]);
const BUILDER_DONE = /^Build (finished|failed)\b/;
/** A step's first line: `[builder 2/3] RUN …` on the service (`CACHED ` first when cached), `[2/3] RUN …` in a v1 build. */
const STEP_COUNT = /^(?:CACHED )?\[(?:builder )?(\d+)\/(\d+)\]/;

/** The stage a build is in after `entries` (in log order), starting from `stage`. */
export function stageAfter(stage: BuildStage, entries: readonly BuildLogEntry[]): BuildStage {
  for (const entry of entries) {
    if (entry.step === undefined && BUILDER_DONE.test(entry.message)) stage = "finished";
    else if (stage === "running" && entry.step !== undefined && (LAST_PHASES.has(entry.step) || isLastStep(entry))) stage = "finalizing";
  }
  return stage;
}

/** Whether `entry` opens the build's last step (`[3/3]`). */
function isLastStep(entry: BuildLogEntry): boolean {
  const count = STEP_COUNT.exec(entry.message);
  return count !== null && count[1] === count[2] && count[1] === entry.step;
}

/** The pacing state of one wait: the stage seen so far and any slowdown asked for by 429s. */
export class BuildPace {
  private stage: BuildStage = "running";
  private slowdown = 1;
  private floorMs = 0;

  /** @param runningMs pause while steps run; the later stages never pause longer than this. */
  constructor(private readonly runningMs: number = BUILD_RUNNING_PAUSE_MS) {}

  /** Reads a page of log entries as they arrive. */
  observe(entries: readonly BuildLogEntry[]): void {
    this.stage = stageAfter(this.stage, entries);
  }

  /**
   * A status request was answered 429. Every later pause doubles (up to {@link BUILD_MAX_PAUSE_MS});
   * the next one lasts at least `retryAfterMs` when the service gave one.
   */
  throttled(retryAfterMs: number | undefined): void {
    this.slowdown = Math.min(this.slowdown * 2, 64);
    this.floorMs = Math.max(this.floorMs, retryAfterMs ?? THROTTLED_PAUSE_MS);
  }

  /** A 429 the HTTP layer already waited out (its Retry-After) before repeating: only slow down. */
  throttledAndWaited(): void {
    this.slowdown = Math.min(this.slowdown * 2, 64);
  }

  /** The stage seen so far. */
  get current(): BuildStage {
    return this.stage;
  }

  /** The pause before the next status request, in milliseconds; consumes a pending Retry-After. */
  nextPauseMs(): number {
    const base = this.stage === "running"
      ? this.runningMs
      : Math.min(this.runningMs, this.stage === "finalizing" ? BUILD_FINALIZING_PAUSE_MS : BUILD_FINISHED_PAUSE_MS);
    const pause = Math.max(Math.min(base * this.slowdown, Math.max(base, BUILD_MAX_PAUSE_MS)), this.floorMs);
    this.floorMs = 0;
    return pause;
  }
}
