/**
 * What every provider method needs: the service's credentials and endpoints, and a client.
 * Config comes from `configure` (stack config `sandbox:*`), else the env vars the sdk reads. It lives
 * only in the provider host process: nothing here is captured in the serialized provider.
 */
import type { PlatformClient } from "../../sdk/client";
import type { ClientOptions, RetryOptions } from "../../sdk/config";
import { CONFIG_KEYS } from "../config-keys";

export interface ConfigSource {
  get(key: string): string | undefined;
}

let configured: ClientOptions = {};
let client: { key: string; client: PlatformClient } | undefined;

/** Called by the dynamic-provider host once, before the first method, with the whole stack config. */
export function configure(config: ConfigSource): void {
  const options: ClientOptions = {};
  for (const [option, key] of Object.entries(CONFIG_KEYS) as [keyof typeof CONFIG_KEYS, string][]) {
    const value = config.get(key);
    if (value !== undefined && value !== "") options[option] = value;
  }
  configured = options;
}

export function clientOptions(): ClientOptions {
  return { ...configured };
}

/**
 * The provider repeats a failed idempotent call more often than the sdk's default (5 attempts): a
 * deployment that gives up leaves work half done for the next `up`, and an `up` makes hundreds of
 * calls, so 5 attempts lose a run to a quarter of calls failing (0.25^5 per call) every few runs.
 * 10 attempts make that one in a million calls, and the capped, jittered backoff (at most ~45 s in all)
 * stays well inside a deployment's patience.
 */
export const PROVIDER_RETRY: Required<RetryOptions> = { maxAttempts: 10, baseDelayMs: 200, maxDelayMs: 10_000 };

/** One client (one keep-alive pool) per set of options, for the life of the host process. */
export function platform(): PlatformClient {
  const key = JSON.stringify(configured);
  if (!client || client.key !== key) {
    // Loaded here, not at the top: `check` and `diff` (a preview) read the config but make no call.
    const { PlatformClient } = require("../../sdk/client") as typeof import("../../sdk/client");
    client = { key, client: new PlatformClient({ retry: PROVIDER_RETRY, ...configured }) };
  }
  return client.client;
}

/** Every credential in use, to redact from anything shown or stored. */
export function credentials(): string[] {
  const o = platform().options;
  return [o.apiKey, o.accessToken].filter((v): v is string => !!v);
}
