// Worker of bench 3: one round. Starts one template build per policy, waits for each with its
// policy from a random phase of its polling period, and prints, per policy, how long after the
// emulator marked the build ready (its `finishedAt`) the wait returned. The policies poll at different
// periods, so running them side by side does not lock their phases together (waits of one period
// sharing a process do, which would turn N samples into one).
import { createRequire } from "node:module";
import { setTimeout as sleep } from "node:timers/promises";

const require = createRequire(import.meta.url);
const { PlatformClient } = require("pulumi-sandbox/sdk");
const { service } = JSON.parse(process.argv[2]);
const client = new PlatformClient({ apiKey: service.apiKey, accessToken: service.accessToken, apiUrl: service.apiUrl });

/** Each policy: its polling period (ms) and how it waits for build `b` to be over. */
const POLICIES = {
  // Our sdk, as the provider's Template create uses it: paced by the build's log (1 s while steps run).
  ours: { period: 1000, wait: (b) => client.templates.waitForBuild(b.templateID, b.buildID) },
  // The official SDK's Template.build loop (waitForBuildFinish: a status poll every 200 ms, then log
  // pages back to back until one is empty), re-enacted with its public Template.getBuildStatus.
  official: { period: 200, wait: officialWait },
  // The baseline: a status poll every 5 s.
  poll5s: {
    period: 5000,
    wait: async (b) => {
      while (!["ready", "error"].includes((await client.templates.buildStatus(b.templateID, b.buildID)).status)) await sleep(5000);
    },
  },
};

async function officialWait(b) {
  const { Template } = await import("e2b");
  const opts = { apiKey: service.apiKey, apiUrl: service.apiUrl };
  let logsOffset = 0;
  const poll = async () => {
    const s = await Template.getBuildStatus({ templateId: b.templateID, buildId: b.buildID }, { ...opts, logsOffset });
    logsOffset += s.logEntries.length;
    return s;
  };
  for (;;) {
    const s = await poll();
    if (s.status === "ready" || s.status === "error") {
      for (let tail = s; tail.logEntries.length > 0; ) tail = await poll();
      return;
    }
    await sleep(200);
  }
}

await import("e2b"); // loaded before the clock starts
// A build as users write them: a few steps, then a start and a ready command run by the finalize phase.
const dockerfile = "FROM e2bdev/base:latest\nRUN apt-get update && apt-get install -y curl\nWORKDIR /app\nRUN pip install flask\n";
const commands = { startCmd: "python -m flask run", readyCmd: "curl -sf localhost:5000" };
const result = {};
await Promise.all(
  Object.entries(POLICIES).map(async ([policy, { period, wait }]) => {
    const b = await client.templates.create({ dockerfile, ...commands, alias: `bench-${policy}-${process.pid}` });
    await sleep(Math.random() * period);
    await wait(b);
    const returned = Date.now();
    const build = (await client.templates.get(b.templateID)).builds.find((x) => x.buildID === b.buildID);
    result[policy] = { overhead: returned - Date.parse(build.finishedAt), templateID: b.templateID };
  }),
);
const t0 = performance.now();
await client.templates.buildStatus(result.ours.templateID, (await client.templates.get(result.ours.templateID)).builds[0].buildID, { logsOffset: 1e6 });
result.rtt = performance.now() - t0;
await client.close();
console.log(JSON.stringify(result));
