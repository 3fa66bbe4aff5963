/**
 * Stack config keys (namespace `sandbox`), and the sdk option each one sets. A pure module: the schema
 * builder documents these keys and the runtime reads them, and neither should load the HTTP client
 * to learn their names.
 */
import { DEFAULT_REQUEST_TIMEOUT_MS, positiveMs, type ClientOptions } from "../sdk/config";

export const CONFIG_KEYS = {
  apiKey: "sandbox:apiKey",
  accessToken: "sandbox:accessToken",
  domain: "sandbox:domain",
  apiUrl: "sandbox:apiUrl",
  sandboxUrl: "sandbox:sandboxUrl",
  requestTimeoutMs: "sandbox:requestTimeoutMs",
  retry: "sandbox:maxRetries",
} as const satisfies Partial<Record<keyof ClientOptions, string>>;

type ConfigOption = keyof typeof CONFIG_KEYS;

/**
 * Times the provider tries a failed call again (a 429 or 5xx answer, a dropped connection) when
 * `sandbox:maxRetries` is unset: 10 attempts in all (./runtime/context.ts says why so many).
 */
export const DEFAULT_MAX_RETRIES = 9;
/** More would wait minutes on one call: the backoff's cap is 10 s an attempt. */
const MOST_RETRIES = 50;

/** A whole number of retries in [0, MOST_RETRIES], or undefined. */
function retriesOf(text: string): number | undefined {
  if (!/^\d+$/.test(text.trim())) return undefined;
  const value = Number(text.trim());
  return value <= MOST_RETRIES ? value : undefined;
}

/** The client options set by stack config, and each value that cannot be used (its key, the rule, the fix). */
export interface ConfiguredOptions {
  options: ClientOptions;
  problems: string[];
}

/**
 * Reads every key with `get` (an empty value is unset). Stack config is text; a number is checked here,
 * where the key is known, so a bad one is reported by its key and not as the sdk option it sets.
 */
export function optionsFromConfig(get: (key: string) => string | undefined): ConfiguredOptions {
  const options: ClientOptions = {};
  const problems: string[] = [];
  for (const [option, key] of Object.entries(CONFIG_KEYS) as [ConfigOption, string][]) {
    const value = get(key);
    if (value === undefined || value === "") continue;
    if (option === "retry") {
      const retries = retriesOf(value);
      if (retries !== undefined) options.retry = { maxAttempts: retries + 1 };
      else {
        problems.push(
          `${key}: must be a whole number from 0 to ${MOST_RETRIES}, got ${JSON.stringify(value)}: run ` +
            `\`pulumi config set ${key} 3\` (say), or \`pulumi config rm ${key}\` for the default ${DEFAULT_MAX_RETRIES}.`,
        );
      }
      continue;
    }
    if (option !== "requestTimeoutMs") {
      options[option] = value;
      continue;
    }
    const ms = positiveMs(value);
    if (ms !== undefined) options.requestTimeoutMs = ms;
    else {
      problems.push(
        `${key}: must be a positive whole number of milliseconds, got ${JSON.stringify(value)}: run ` +
          `\`pulumi config set ${key} 120000\` (say), or \`pulumi config rm ${key}\` for the default ${DEFAULT_REQUEST_TIMEOUT_MS}.`,
      );
    }
  }
  return { options, problems };
}

/** The credentials a kind of resource can need; which ones it does is a field of its spec. */
export type Credential = "apiKey" | "accessToken";
