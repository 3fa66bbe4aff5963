/**
 * A sandbox namespace stopped right after it reports ready leaves no init behind. The init's
 * parent-death signal is what takes it when `unshare` is killed; an exec that gains capabilities
 * clears that signal, and a stop that came in the gap left the init running for ever (the isolation
 * probe, which stops its namespace at once, leaked one init per emulator process this way).
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { accountBinds, prepareRoot, systemDirOf, systemView, writeAccountFiles } from "../../emulator/envd/isolation/layout";
import { findTools, ID_BASE } from "../../emulator/envd/isolation/mode";
import { SandboxNamespace } from "../../emulator/envd/isolation/namespace";

const dir = mkdtempSync(join(tmpdir(), "namespace-stop-"));
// The sandboxes' host ids must pass through it, as through the emulator's data dir.
chmodSync(dir, 0o711);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Host pids of processes whose root is `rootDir` (the namespace's init and anything it left). */
function processesRootedAt(rootDir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const root = readFileSync(`/proc/${entry}/mountinfo`, "utf8").split("\n")[0]?.split(" ")[3] ?? "";
      if (root.startsWith(rootDir)) found.push(Number(entry));
    } catch {
      // gone while we looked
    }
  }
  return found;
}

it("stopping namespaces the moment they are ready leaves no process in them", async () => {
  const tools = findTools();
  if (typeof tools === "string") throw new Error(`util-linux '${tools}' is needed (CI runs as root with it)`);
  const isolation = { mode: "namespaces" as const, idBase: ID_BASE, tools };
  const roots: string[] = [];
  for (let i = 0; i < 12; i++) {
    const rootDir = join(dir, `root-${i}`);
    prepareRoot(rootDir, isolation, []);
    writeAccountFiles(systemDirOf(rootDir));
    const ns = await SandboxNamespace.start(isolation, { rootDir, readOnly: [...systemView().binds, ...accountBinds(systemDirOf(rootDir))], volumes: [] });
    await ns.stop();
    roots.push(rootDir);
  }
  // The init's SIGKILL is sent as `unshare` exits; give the kernel a moment to finish each.
  let left: number[] = [];
  for (let tries = 0; tries < 50; tries++) {
    left = roots.flatMap(processesRootedAt);
    if (left.length === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(left, `processes left in stopped namespaces: ${left.join(", ")}`).toEqual([]);
  expect(roots.every((r) => existsSync(r))).toBe(true);
});
