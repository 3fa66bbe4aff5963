/**
 * Live-memory sampling for the "output does not accumulate" tests. Plain heapUsed includes garbage
 * not yet collected, so it says little; here each sample forces a full GC first and reads what is
 * still reachable (JS heap and ArrayBuffers, where output bytes live).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

export interface LiveMemory {
  heapUsed: number;
  arrayBuffers: number;
}

function live(): LiveMemory {
  // Twice: V8 frees the backing stores of dead ArrayBuffers on a background thread after a GC, and
  // the next GC first waits for that sweep. One GC alone counts chunks already dead but not yet
  // freed, which on a loaded machine was 20+ MB of a binary stream's 50 MB (none of it reachable).
  gc();
  gc();
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, arrayBuffers: m.arrayBuffers };
}

/**
 * A probe: `sample(chars)` (call it from onStdout) takes a sample each `everyChars` characters;
 * `growth()` is the largest rise over the baseline taken when the probe was made.
 */
export function memoryProbe(everyChars = 5 * 1024 * 1024) {
  const base = live();
  const peak = { ...base };
  let seen = 0;
  let next = everyChars;
  let samples = 0;
  return {
    sample(chars: number): void {
      seen += chars;
      if (seen < next) return;
      next += everyChars;
      samples++;
      const now = live();
      peak.heapUsed = Math.max(peak.heapUsed, now.heapUsed);
      peak.arrayBuffers = Math.max(peak.arrayBuffers, now.arrayBuffers);
    },
    growth(): LiveMemory & { samples: number } {
      return { heapUsed: peak.heapUsed - base.heapUsed, arrayBuffers: peak.arrayBuffers - base.arrayBuffers, samples };
    },
  };
}
