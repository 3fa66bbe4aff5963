/**
 * The stack config the provider was configured with. Apart from ./context.ts (the client), so that
 * `check`, which reads it to report a missing credential at preview, does not load the HTTP client.
 * It lives only in the provider host process: nothing here is in the provider text in state.
 */
import type { ClientOptions } from "../../sdk/config";
import { CONFIG_KEYS } from "../config-keys";

export interface ConfigSource {
  get(key: string): string | undefined;
}

let configured: ClientOptions = {};

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
