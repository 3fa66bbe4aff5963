/** What runs on the host, read from /proc: for tests that check no sandbox process is left over. */
import { readdirSync, readFileSync } from "node:fs";

/** Host pids running exactly `sleep <marker>` (a marker no other process uses). */
export function hostSleeps(marker: string): number[] {
  return readdirSync("/proc")
    .filter((name) => {
      try {
        return /^\d+$/.test(name) && readFileSync(`/proc/${name}/cmdline`, "utf8") === `sleep\0${marker}\0`;
      } catch {
        return false; // ended meanwhile
      }
    })
    .map(Number);
}
