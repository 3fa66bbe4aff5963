// Peak resident memory of a process tree, by role: every descendant of `rootPid` is read from /proc
// every 100 ms, and the kernel's own high-water mark (VmHWM) of each kept, so a process caught once
// before it exits still reports its true peak. Roles come from the command line: the dynamic-provider
// host (where pulumi-sandbox and the inline provider run), a native plugin, the language host and the
// program; the CLI itself is `engine`.
import { readdirSync, readFileSync } from "node:fs";

const ROLES = [
  ["provider", /dynamic-provider|pulumi-resource-sandbox/],
  ["language host", /pulumi-language-nodejs/],
  ["program", /run-plugin|@pulumi\/pulumi\/cmd\/run|node.*index\.js/],
  ["engine", /(^|\/)pulumi\0/],
];

function parentsOf() {
  const parents = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {}
  }
  return parents;
}

function descendants(rootPid) {
  const parents = parentsOf();
  const out = new Set([rootPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parents) if (out.has(ppid) && !out.has(pid)) (out.add(pid), (grew = true));
  }
  return out;
}

function sample(pid) {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return hwm ? { cmd, kb: Number(hwm[1]) } : undefined;
  } catch {
    return undefined;
  }
}

/** Starts watching; `stop()` returns the largest peak per role, in kB (a role's processes are not summed). */
export function watchPeakRss(rootPid) {
  const peaks = {};
  const tick = () => {
    for (const pid of descendants(rootPid)) {
      const s = sample(pid);
      const role = s && ROLES.find(([, re]) => re.test(s.cmd))?.[0];
      if (role) peaks[role] = Math.max(peaks[role] ?? 0, s.kb);
    }
  };
  const timer = setInterval(tick, 100);
  return {
    stop() {
      clearInterval(timer);
      tick();
      return peaks;
    },
  };
}
