// Bench 12: what a sandbox's way out to the network costs (emulator/envd/network/uplink.ts): the
// same sandbox life through the official SDK against two emulators in this process, one whose
// sandboxes get an uplink (a network namespace the host's root holds, slirp4netns, the egress rules
// loaded with iptables-restore) and one whose sandboxes have their loopback alone. The uplink starts
// with the sandbox's namespaces, at its first command; its processes' memory is read from /proc.
import { createRequire } from "node:module";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fmt, median, ratio, table } from "./lib.mjs";

const require = createRequire(import.meta.url);
const { createEmulator } = require("pulumi-sandbox/emulator");
const { Sandbox } = require("e2b");

const MODES = ["uplink", "loopback"];

export async function sandboxNetworkBench({ rounds, log }) {
  const emus = Object.fromEntries(await Promise.all(MODES.map(async (m) => [m, await createEmulator({ images: "host", sandboxNetwork: m })])));
  const times = Object.fromEntries(MODES.map((m) => [m, { create: [], first: [], next: [], kill: [] }]));
  const rss = [];
  try {
    if (emus.uplink.isolation.mode !== "namespaces" || !emus.uplink.isolation.tools.slirp4netns) return "Not run: sandboxes are not isolated here, or slirp4netns is not installed.";
    for (let i = 0; i < rounds; i++) {
      for (const mode of MODES) {
        const t = await life(emus[mode], mode === "uplink" ? rss : undefined);
        for (const k of Object.keys(t)) times[mode][k].push(t[k]);
      }
      log(`  sandbox network round ${i + 1}/${rounds}: first command ${MODES.map((m) => `${m} ${fmt(times[m].first.at(-1), 0)} ms`).join(", ")}`);
    }
  } finally {
    await Promise.all(MODES.map((m) => emus[m].close()));
  }
  const row = (label, key) => [label, ...MODES.map((m) => fmt(median(times[m][key]), 0)), ratio(median(times.uplink[key]), median(times.loopback[key]))];
  return table(
    [`${rounds} sandboxes each, medians (ms)`, "with its uplink", "loopback alone", "uplink / loopback"],
    [row("create", "create"), row("first command (starts the namespaces)", "first"), row("next command", "next"), row("kill", "kill"),
      ["uplink processes' memory (RSS, MiB): slirp4netns + the namespace's holder", fmt(median(rss), 1), "-", ""]],
  );
}

/** One sandbox through the official SDK: create, two commands, kill; each step's ms. */
async function life(emu, rss) {
  const opts = { apiKey: emu.apiKey, apiUrl: emu.apiUrl, sandboxUrl: emu.sandboxUrl };
  const t0 = performance.now();
  const sbx = await Sandbox.create("base", opts);
  const t1 = performance.now();
  await sbx.commands.run("true");
  const t2 = performance.now();
  await sbx.commands.run("true");
  const t3 = performance.now();
  rss?.push(uplinkRss());
  const t4 = performance.now();
  await sbx.kill();
  return { create: t1 - t0, first: t2 - t1, next: t3 - t2, kill: performance.now() - t4 };
}

/** MiB held by the uplink processes (slirp4netns, `sleep infinity`) of the one running sandbox. */
function uplinkRss() {
  const pids = ["slirp4netns", "sleep infinity"].flatMap((p) => execFileSync("pgrep", ["-f", p], { encoding: "utf8" }).trim().split("\n").filter(Boolean));
  const kib = pids.map((pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0));
  return kib.reduce((a, b) => a + b, 0) / 1024;
}
