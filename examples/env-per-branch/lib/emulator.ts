// `node envs.ts emulator`: the local service for the other commands, as `npm start` is for the
// quickstart. It runs until Ctrl-C (or SIGTERM) and writes its endpoints to EMULATOR_FILE meanwhile,
// readable by its owner only (it holds the emulator's key).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createEmulator } from "pulumi-sandbox/emulator";
import { EMULATOR_FILE, ENVS_DIR, type Endpoints } from "./service.ts";

export async function runEmulator(): Promise<void> {
  const emulator = await createEmulator({ port: Number(process.env.EMULATOR_PORT ?? 0) });
  const endpoints: Endpoints = { apiUrl: emulator.apiUrl, sandboxUrl: emulator.sandboxUrl, apiKey: emulator.apiKey, accessToken: emulator.accessToken };
  mkdirSync(ENVS_DIR, { recursive: true });
  writeFileSync(EMULATOR_FILE, `${JSON.stringify(endpoints)}\n`, { mode: 0o600 });
  console.log(`emulator at ${emulator.apiUrl}; endpoints in ${EMULATOR_FILE}`);
  console.log("In another terminal: node envs.ts up <name...>, list, down, prune. Ctrl-C stops the emulator (its sandboxes go with it).");
  const signal = await new Promise<string>((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
  rmSync(EMULATOR_FILE, { force: true });
  await emulator.close();
  console.log(`emulator stopped (${signal})`);
}
