/**
 * Stack config keys (namespace `sandbox`), and the sdk option each one sets. A pure module: the schema
 * builder documents these keys and the runtime reads them, and neither should load the HTTP client
 * to learn their names.
 */
import type { ClientOptions } from "../sdk/config";

export const CONFIG_KEYS = {
  apiKey: "sandbox:apiKey",
  accessToken: "sandbox:accessToken",
  domain: "sandbox:domain",
  apiUrl: "sandbox:apiUrl",
  sandboxUrl: "sandbox:sandboxUrl",
} as const satisfies Partial<Record<keyof ClientOptions, string>>;

/** The credentials a kind of resource can need; which ones it does is a field of its spec. */
export type Credential = "apiKey" | "accessToken";
