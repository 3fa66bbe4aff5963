/**
 * The stack config the provider was configured with. Apart from ./context.ts (the client), so that
 * `check`, which reads it to report a missing credential at preview, does not load the HTTP client.
 * It lives only in the provider host process: nothing here is in the provider text in state.
 */
import type { ClientOptions } from "../../sdk/config";
import { optionsFromConfig, type ConfiguredOptions } from "../config-keys";

export interface ConfigSource {
  get(key: string): string | undefined;
}

let configured: ConfiguredOptions = { options: {}, problems: [] };

/**
 * Called by the host once, before the first method, with the whole stack config. A bad value is kept
 * as a problem for `check` to report (../runtime/index.ts), at preview, rather than thrown here,
 * where the engine shows no resource and no key.
 */
export function configure(config: ConfigSource): void {
  configured = optionsFromConfig((key) => config.get(key));
}

export function clientOptions(): ClientOptions {
  return { ...configured.options };
}

/** What is wrong with the stack config, one message per key. */
export function configProblems(): string[] {
  return [...configured.problems];
}
