/**
 * What every provider method needs: the service's credentials and endpoints, and a client.
 * Config comes from `configure` (stack config `sandbox:*`, kept in ./configured.ts), else the env vars
 * the sdk reads. It lives only in the provider host process: nothing here is in the provider text.
 */
import { PlatformClient } from "../../sdk/platform/client";
import type { RetryOptions } from "../../sdk/config";
import { DEFAULT_MAX_RETRIES } from "../config-keys";
import { clientOptions } from "./configured";

export { clientOptions, configure, type ConfigSource } from "./configured";

let client: { key: string; client: PlatformClient } | undefined;

/**
 * The provider repeats a failed idempotent call more often than the sdk's default (5 attempts): a
 * deployment that gives up leaves work half done for the next `up`, and an `up` makes hundreds of
 * calls, so 5 attempts lose a run to a quarter of calls failing (0.25^5 per call) every few runs.
 * 10 attempts make that one in a million calls, and the capped, jittered backoff (at most ~45 s in all)
 * stays well inside a deployment's patience. `sandbox:maxRetries` sets the number for a stack (a pipeline
 * that would rather fail fast and run again).
 */
export const PROVIDER_RETRY: Required<RetryOptions> = { maxAttempts: DEFAULT_MAX_RETRIES + 1, baseDelayMs: 200, maxDelayMs: 10_000 };

/** One client (one keep-alive pool) per set of options, for the life of the host process. */
export function platform(): PlatformClient {
  const options = clientOptions();
  const key = JSON.stringify(options);
  if (!client || client.key !== key) client = { key, client: new PlatformClient({ ...options, retry: { ...PROVIDER_RETRY, ...options.retry } }) };
  return client.client;
}
