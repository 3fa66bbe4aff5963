/**
 * Credentials and endpoints. `resolveOptions` is pure: an explicit option wins, then the
 * environment variable, then the default. Nothing here touches the network.
 */
import { SandboxError } from "./errors";

/** Retry policy of the platform client. */
export interface RetryOptions {
  /** Attempts in all, the first included. Default 5; 1 turns retries off. */
  maxAttempts?: number;
  /** First backoff, in milliseconds; doubles each attempt, with full jitter. Default 200. */
  baseDelayMs?: number;
  /** Cap of one backoff (and of an honoured Retry-After), in milliseconds. Default 10000. */
  maxDelayMs?: number;
}

export interface ClientOptions {
  /** API key (`e2b_…`), sent as `X-API-Key`. Env `E2B_API_KEY`. */
  apiKey?: string | undefined;
  /** Access token (`sk_e2b_…`), sent as `Authorization: Bearer`; only the v1 rebuild needs it. Env `E2B_ACCESS_TOKEN`. */
  accessToken?: string | undefined;
  /** Service domain. Env `E2B_DOMAIN`. Default `e2b.app`. */
  domain?: string | undefined;
  /** Platform API base URL. Env `E2B_API_URL`. Default `https://api.{domain}`. */
  apiUrl?: string | undefined;
  /**
   * In-sandbox API base URL. Env `E2B_SANDBOX_URL`. When set, every sandbox is reached at this one URL
   * with routing headers; otherwise at `https://{port}-{sandboxID}.{domain}`.
   */
  sandboxUrl?: string | undefined;
  /**
   * Deadline of one HTTP request (not of a whole retried call), in milliseconds. Env
   * `PULUMI_SANDBOX_REQUEST_TIMEOUT_MS`. Default 60000.
   */
  requestTimeoutMs?: number | undefined;
  retry?: RetryOptions | undefined;
  /**
   * Codec of the in-sandbox API (Connect): `binary` (protobuf, the default: output bytes travel as
   * they are) or `json` (what the official SDK speaks: output as base64 inside JSON). envd serves
   * both. Env `PULUMI_SANDBOX_RPC_CODEC`.
   */
  rpcCodec?: RpcCodec | undefined;
}

/** Codecs of the in-sandbox API's Connect calls. */
export const RPC_CODECS = ["binary", "json"] as const;
export type RpcCodec = (typeof RPC_CODECS)[number];
export const DEFAULT_RPC_CODEC: RpcCodec = "binary";

export interface ResolvedOptions {
  apiKey: string | undefined;
  accessToken: string | undefined;
  domain: string;
  apiUrl: string;
  sandboxUrl: string | undefined;
  requestTimeoutMs: number;
  retry: Required<RetryOptions>;
  rpcCodec: RpcCodec;
}

export const DEFAULT_DOMAIN = "e2b.app";
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** The project's own variable: the service's SDKs read none for this deadline. */
export const REQUEST_TIMEOUT_ENV = "PULUMI_SANDBOX_REQUEST_TIMEOUT_MS";
export const DEFAULT_RETRY: Required<RetryOptions> = { maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 10_000 };

type Env = Readonly<Record<string, string | undefined>>;

/** An empty string counts as unset: `E2B_API_KEY=` in a CI file must not become a blank key. */
function pick(...values: (string | undefined)[]): string | undefined {
  for (const v of values) if (v !== undefined && v.trim() !== "") return v.trim();
  return undefined;
}

export function resolveOptions(opts: ClientOptions = {}, env: Env = process.env): ResolvedOptions {
  const domain = pick(opts.domain, env.E2B_DOMAIN) ?? DEFAULT_DOMAIN;
  const apiUrl = stripSlash(pick(opts.apiUrl, env.E2B_API_URL) ?? `https://api.${domain}`);
  const sandboxUrl = pick(opts.sandboxUrl, env.E2B_SANDBOX_URL);
  const timeout = requestTimeoutOf(opts.requestTimeoutMs, env[REQUEST_TIMEOUT_ENV]);
  return {
    apiKey: pick(opts.apiKey, env.E2B_API_KEY),
    accessToken: pick(opts.accessToken, env.E2B_ACCESS_TOKEN),
    domain,
    apiUrl,
    sandboxUrl: sandboxUrl === undefined ? undefined : stripSlash(sandboxUrl),
    requestTimeoutMs: timeout,
    retry: { ...DEFAULT_RETRY, ...definedOnly(opts.retry ?? {}) },
    rpcCodec: rpcCodecOf(opts.rpcCodec, env.PULUMI_SANDBOX_RPC_CODEC),
  };
}

/** The option, else the env variable (whole milliseconds), else the default; a bad value is refused naming where it came from. */
function requestTimeoutOf(option: number | undefined, fromEnv: string | undefined): number {
  if (option !== undefined) {
    if (option > 0) return option;
    throw new SandboxError({ code: "invalid_argument", message: `requestTimeoutMs must be a positive number of milliseconds, got ${option}` });
  }
  const text = pick(fromEnv);
  if (text === undefined) return DEFAULT_REQUEST_TIMEOUT_MS;
  const value = positiveMs(text);
  if (value !== undefined) return value;
  throw new SandboxError({
    code: "invalid_argument",
    message: `the ${REQUEST_TIMEOUT_ENV} environment variable must be a positive whole number of milliseconds, got ${JSON.stringify(fromEnv)}: ` +
      `set it to one (e.g. 120000), or leave it unset for ${DEFAULT_REQUEST_TIMEOUT_MS}.`,
  });
}

/** A positive whole number of milliseconds written as digits (`"120000"`), else undefined. */
export function positiveMs(text: string): number | undefined {
  if (!/^\d+$/.test(text.trim())) return undefined;
  const value = Number(text.trim());
  return value > 0 && Number.isSafeInteger(value) ? value : undefined;
}

/** The option, else the env variable, else binary; anything else is refused naming where it came from. */
function rpcCodecOf(option: string | undefined, fromEnv: string | undefined): RpcCodec {
  const value = option ?? pick(fromEnv)?.toLowerCase();
  if (value === undefined) return DEFAULT_RPC_CODEC;
  if ((RPC_CODECS as readonly string[]).includes(value)) return value as RpcCodec;
  const where = option !== undefined ? "the rpcCodec option" : "the PULUMI_SANDBOX_RPC_CODEC environment variable";
  throw new SandboxError({
    code: "invalid_argument",
    message: `${where} must be "binary" or "json", got ${JSON.stringify(option ?? fromEnv)}: set it to one of them, or leave it unset for binary.`,
  });
}

/** The API key, or a `missing_credential` error that says where to set one. Thrown before any request. */
export function requireApiKey(opts: ResolvedOptions): string {
  if (opts.apiKey) return opts.apiKey;
  throw new SandboxError({
    code: "missing_credential",
    message:
      "No API key is configured. Set the E2B_API_KEY environment variable or pass the apiKey option " +
      "(in a Pulumi stack: `pulumi config set --secret sandbox:apiKey <key>`).",
  });
}

/** The access token, or a `missing_credential` error that says where to set one. Thrown before any request. */
export function requireAccessToken(opts: ResolvedOptions): string {
  if (opts.accessToken) return opts.accessToken;
  throw new SandboxError({
    code: "missing_credential",
    message:
      "This operation needs an access token (Authorization: Bearer). Set the E2B_ACCESS_TOKEN environment " +
      "variable or pass the accessToken option (in a Pulumi stack: `pulumi config set --secret sandbox:accessToken <token>`).",
  });
}

function stripSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
