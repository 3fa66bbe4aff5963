#!/usr/bin/env node
// `npm start`: the main job. Starts the embedded emulator, deploys examples/quickstart on it with the
// real Pulumi CLI (preview, then up), prints the outputs and the provisioning result, then keeps the
// emulator running so the stack can be inspected, re-run and destroyed from another terminal
// (`npm run local -- <pulumi args>`) and looked at on the emulator's page (its link is printed). Ctrl-C destroys the stack and stops. With `--once`, or when
// not attached to a terminal (CI), it destroys the stack and exits after printing.
// No account, no internet: credentials are the emulator's, kept in the stack's encrypted config.
import { mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { ensurePulumi } from "./ensure-pulumi.mjs";
import { LOCAL_STACK, localPaths } from "./local.mjs";
import { initStack, pulumiEnv, runPulumi } from "./pulumi-run.mjs";

const require = createRequire(import.meta.url);
const { stateDir, example } = localPaths;
const once = process.argv.includes("--once") || !process.stdout.isTTY;
const say = (text) => process.stdout.write(`\n\x1b[1m${text}\x1b[0m\n`);

async function pulumi(env, args, { show = true } = {}) {
  const res = await runPulumi(args, { cwd: example, env, onOutput: show ? (t) => process.stdout.write(t) : undefined });
  if (res.code !== 0) {
    if (!show) process.stdout.write(res.output);
    throw new Error(`pulumi ${args.join(" ")} failed (exit ${res.code})`);
  }
  return res;
}

async function main() {
  say("1/4 Pulumi CLI");
  const binDir = await ensurePulumi();
  console.log(`using ${binDir}/pulumi`);

  say("2/4 Starting the embedded emulator");
  const { createEmulator } = require("../dist/emulator/index.js");
  // `images: "host"`: the quickstart's FROM e2bdev/base runs on this machine's system dirs, so the main
  // job needs no registry and no internet (docs/emulator.md#templates-images); SANDBOX_EMULATOR_IMAGES=registry pulls it.
  const images = process.env.SANDBOX_EMULATOR_IMAGES ?? "host";
  const emu = await createEmulator({ buildDelayMs: 2000, port: Number(process.env.EMULATOR_PORT ?? 0), images });
  console.log(`emulator at ${emu.apiUrl} (a new, empty service: the local stack starts fresh)`);
  console.log(`templates' FROM images: ${emu.images === "host" ? "not pulled; templates run on this machine's system dirs (images: host)" : `pulled (images: ${emu.images})`}`);
  rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  const env = pulumiEnv({ binDir, stateDir });
  await initStack({ cwd: example, env, stack: LOCAL_STACK, service: emu });

  let stop = async () => {
    await emu.close();
  };
  try {
    say("3/4 pulumi preview");
    await pulumi(env, ["preview"]);
    say("4/4 pulumi up");
    await pulumi(env, ["up", "--yes", "--skip-preview"]);
    const outputs = JSON.parse((await pulumi(env, ["stack", "output", "--json"], { show: false })).stdout);
    // provisionResults is a secret output (it derives from the provisioning step, a secret input), but
    // the provider already redacted every secret value in it: showing it is showing the command's result.
    const results = await pulumi(env, ["stack", "output", "provisionResults", "--json", "--show-secrets"], { show: false });
    printOutputs({ ...outputs, provisionResults: JSON.parse(results.stdout) });
    stop = async () => {
      say("Destroying the stack and stopping the emulator");
      await pulumi(env, ["destroy", "--yes", "--skip-preview"], { show: false }).catch((e) => console.error(e.message));
      await emu.close();
    };
    if (once) return;
    printHelp(emu.apiUrl, emu.pageUrl);
    await new Promise((resolve) => process.once("SIGINT", resolve));
  } finally {
    await stop();
  }
}

function printOutputs(out) {
  say("Deployed");
  for (const [k, v] of Object.entries(out)) if (k !== "provisionResults") console.log(`  ${k.padEnd(16)} ${JSON.stringify(v)}`);
  console.log("\nProvisioning (exit code, duration, last output):");
  for (const r of out.provisionResults ?? []) {
    console.log(`  $ ${r.command}\n    exit ${r.exitCode} in ${r.durationMs} ms${r.stdoutTail ? `\n    ${r.stdoutTail.trimEnd().split("\n").join("\n    ")}` : ""}`);
  }
}

function printHelp(apiUrl, pageUrl) {
  say(`The quickstart runs on the emulator at ${apiUrl} for as long as this command runs.`);
  // The key rides in the fragment (#key=), which the browser never sends: it reaches no log.
  console.log(`See what it made in a browser (signed in by this link): ${pageUrl}
In another terminal, from ${process.cwd()}:
  npm run local -- stack output              inspect the outputs
  npm run local -- stack export              the state (secrets stay encrypted)
  npm run local -- up                        run it again: a second up changes nothing
  npm run local -- config set public true    then \`npm run local -- up\`: the template turns public in place
  npm run local -- destroy                   remove everything
Press Ctrl-C here to destroy the stack and stop the emulator.`);
}

main().catch((err) => {
  console.error(`\nnpm start failed: ${err.message}`);
  process.exit(1);
});
