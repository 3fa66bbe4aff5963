#!/usr/bin/env node
// `npm run local -- <pulumi args>`: runs the Pulumi CLI on the quickstart stack that `npm start`
// deployed on the emulator (same CLI, state dir and offline settings), e.g. `npm run local -- up`.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ensurePulumi } from "./ensure-pulumi.mjs";
import { pulumiEnv } from "./pulumi-run.mjs";

const root = join(import.meta.dirname, "..");
export const LOCAL_STACK = "local";
export const localPaths = {
  // SANDBOX_LOCAL_STATE: another state dir (the test of npm start uses a temp one).
  stateDir: process.env.SANDBOX_LOCAL_STATE || join(root, ".sandbox-local", "state"),
  example: join(root, "examples", "quickstart"),
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const binDir = await ensurePulumi();
  const env = { ...pulumiEnv({ binDir, stateDir: localPaths.stateDir }), PULUMI_STACK: LOCAL_STACK };
  const res = spawnSync("pulumi", process.argv.slice(2), { cwd: localPaths.example, env, stdio: "inherit" });
  process.exit(res.status ?? 1);
}
