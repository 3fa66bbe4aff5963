/**
 * A dir and a file of the host's that link tests point their links at: made by the test in a temp
 * dir (root-only file, 0600), and what must stay as it was whatever a route does through a link.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface HostBait {
  dir: string;
  file: string;
  /** The file's mode, owner and content, and the dir's mode and names, now. */
  state(): { fileMode: number; uid: number; gid: number; content: string; dirMode: number; names: string[] };
  remove(): void;
}

export function hostBait(prefix: string): HostBait {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const file = join(dir, "secret");
  writeFileSync(file, "the host's\n");
  chmodSync(file, 0o600);
  return {
    dir,
    file,
    state() {
      const f = statSync(file);
      return { fileMode: f.mode, uid: f.uid, gid: f.gid, content: readFileSync(file, "utf8"), dirMode: statSync(dir).mode, names: readdirSync(dir).sort() };
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A relative link target that climbs far above any root, then names the absolute path `to`. */
export const climbing = (to: string) => `${"../".repeat(12)}${to.slice(1)}`;
