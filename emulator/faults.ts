/**
 * Fault switches for exercising clients: added latency, 429 and 503 answers, connections dropped
 * before the request is handled (no effect) or after (effect, but no answer). Rolls come from a
 * seeded PRNG, so a test with `faultSeed` sees the same sequence every run.
 */

/** Fault settings. Rates are probabilities per request in [0, 1]; all default to 0 (off). */
export interface FaultSettings {
  /** Delay added before every platform request, in milliseconds. Default 0. */
  latencyMs?: number;
  /** Share of requests answered 429 `{"code":429,"message":"Rate limit exceeded"}` with `Retry-After: 1`. */
  rate429?: number;
  /** Share of requests answered 503. */
  rate503?: number;
  /** Share of requests whose socket is destroyed before handling: the request has no effect. */
  dropRate?: number;
  /** Share of requests handled, then their socket destroyed without an answer: outcome unknown to the client. */
  dropAfterRate?: number;
  /** Seed of the PRNG (32-bit integer). Default: random at each start and each `setFaults`. */
  faultSeed?: number;
}

/** How a request was disturbed; recorded in the call log. */
export type FaultKind = "drop" | "rate429" | "rate503" | "dropAfter";

/** What the fault layer does to one request. */
export interface FaultDecision {
  /** Refuse before handling (drop, 429 or 503). */
  before?: Exclude<FaultKind, "dropAfter">;
  /** Handle, then destroy the socket instead of answering. */
  dropAfter: boolean;
  latencyMs: number;
}

const RATE_KEYS = ["rate429", "rate503", "dropRate", "dropAfterRate"] as const;

/** Checks a settings object (from options, CLI flags or POST /_emulator/faults); throws a readable Error. */
export function validateFaults(input: unknown): FaultSettings {
  if (typeof input !== "object" || input === null || Array.isArray(input)) throw new Error("fault settings must be a JSON object");
  const known = new Set<string>(["latencyMs", "faultSeed", ...RATE_KEYS]);
  const out: FaultSettings = {};
  for (const [key, value] of Object.entries(input)) {
    if (!known.has(key)) throw new Error(`unknown fault setting '${key}'; known: ${[...known].join(", ")}`);
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value)) throw new Error(`${key} must be a number`);
    if ((RATE_KEYS as readonly string[]).includes(key) && (value < 0 || value > 1)) throw new Error(`${key} must be between 0 and 1`);
    if (key === "latencyMs" && value < 0) throw new Error("latencyMs must be 0 or more");
    if (key === "faultSeed" && !Number.isInteger(value)) throw new Error("faultSeed must be an integer");
    out[key as keyof FaultSettings] = value;
  }
  return out;
}

/** Mulberry32: a tiny, well-mixed 32-bit PRNG; plenty for fault rolls. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The current fault settings and their seeded PRNG. */
export class Faults {
  private settings: FaultSettings = {};
  private roll: () => number = Math.random;

  constructor(settings: FaultSettings = {}) {
    this.set(settings);
  }

  /** Replaces every setting (omitted ones turn off) and reseeds the PRNG. */
  set(settings: FaultSettings): void {
    this.settings = validateFaults(settings);
    this.roll = mulberry32(this.settings.faultSeed ?? Math.floor(Math.random() * 2 ** 32));
  }

  get(): FaultSettings {
    return { ...this.settings };
  }

  /** Rolls for one request. Always draws four numbers, so one switch does not shift the others' sequence. */
  decide(): FaultDecision {
    const s = this.settings;
    const [drop, r429, r503, after] = [this.roll(), this.roll(), this.roll(), this.roll()];
    let before: FaultDecision["before"];
    if (drop < (s.dropRate ?? 0)) before = "drop";
    else if (r429 < (s.rate429 ?? 0)) before = "rate429";
    else if (r503 < (s.rate503 ?? 0)) before = "rate503";
    const decision: FaultDecision = { dropAfter: after < (s.dropAfterRate ?? 0), latencyMs: s.latencyMs ?? 0 };
    if (before) decision.before = before;
    return decision;
  }
}
