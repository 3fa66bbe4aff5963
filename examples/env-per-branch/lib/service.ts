// Where environments are made and where their state lives. The service: E2B (or any service) when
// E2B_API_KEY is set, as the provider reads it; else the local emulator `node envs.ts emulator`
// runs, found through the endpoints file it writes (as `npm run local` finds `npm start`'s stack).
// Its endpoints and key reach the provider as E2B_* variables of each Pulumi command, so nothing of
// the service is written into a stack: the same stacks work against E2B with a real key.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const HERE = dirname(dirname(fileURLToPath(import.meta.url)));
/** The program every environment is a stack of. */
export const PROGRAM_DIR = join(HERE, "environment");
/** Local files: the default file backend and the emulator's endpoints. */
export const ENVS_DIR = process.env.ENVS_DIR || join(HERE, ".envs");
export const EMULATOR_FILE = join(ENVS_DIR, "emulator.json");

export interface Endpoints {
  apiUrl: string;
  sandboxUrl: string;
  apiKey: string;
  accessToken: string;
}

export interface Service {
  /** Said before a command runs: which service and which backend. */
  label: string;
  /** Added to the environment of every Pulumi command. */
  envVars: Record<string, string>;
}

export function resolveService(env: NodeJS.ProcessEnv = process.env): Service {
  const backend = env.PULUMI_BACKEND_URL || `file://${join(ENVS_DIR, "state")}`;
  if (!env.PULUMI_BACKEND_URL) mkdirSync(join(ENVS_DIR, "state"), { recursive: true });
  const envVars: Record<string, string> = { PULUMI_BACKEND_URL: backend, PULUMI_SKIP_UPDATE_CHECK: "true" };
  if (env.E2B_API_KEY) return { label: `service ${env.E2B_API_URL || `api.${env.E2B_DOMAIN || "e2b.app"}`}, state ${backend}`, envVars };
  if (!existsSync(EMULATOR_FILE)) {
    throw new Error("No service to make environments on: set E2B_API_KEY (and E2B_API_URL for a service other than E2B's), or run `node envs.ts emulator` in another terminal for the local emulator.");
  }
  const e = JSON.parse(readFileSync(EMULATOR_FILE, "utf8")) as Endpoints;
  Object.assign(envVars, { E2B_API_URL: e.apiUrl, E2B_SANDBOX_URL: e.sandboxUrl, E2B_API_KEY: e.apiKey, E2B_ACCESS_TOKEN: e.accessToken });
  // The local emulator's stacks hold no secret worth a passphrase of their own; any other service's
  // need the one you set (PULUMI_CONFIG_PASSPHRASE), or a backend with its own secrets provider.
  envVars.PULUMI_CONFIG_PASSPHRASE = env.PULUMI_CONFIG_PASSPHRASE ?? "env-per-branch-local";
  return { label: `local emulator ${e.apiUrl}, state ${backend}`, envVars };
}
