/**
 * Where a sandbox's in-sandbox API ("envd") lives. Two forms reach the same server: the per-sandbox
 * host `https://{port}-{sandboxID}.{domain}`, or one shared URL (a proxy, the emulator) that routes
 * on the `E2b-Sandbox-Id` and `E2b-Sandbox-Port` headers.
 */
import type { ResolvedOptions } from "../config";
import { SandboxError } from "../errors";

/** Port of envd inside every sandbox. */
export const ENVD_PORT = 49983;

/** Base URL of one sandbox's in-sandbox API plus the routing headers every request to it needs. */
export interface SandboxAddress {
  /** No trailing slash. */
  baseUrl: string;
  /** Empty for the per-sandbox host form. */
  headers: Record<string, string>;
}

// A sandbox ID becomes a DNS label; anything else would silently address another host or path.
const SANDBOX_ID = /^[A-Za-z0-9-]+$/;

/**
 * The address of `sandboxID`'s in-sandbox API on `port` (default 49983). With `sandboxUrl` set
 * (option `sandboxUrl` or env `E2B_SANDBOX_URL`, already resolved into `opts`) that URL is used with
 * routing headers; otherwise `https://{port}-{sandboxID}.{domain}` (domain default `e2b.app`, env
 * `E2B_DOMAIN`). Throws `invalid_argument` for an ID that cannot be a host label.
 */
export function sandboxAddress(
  sandboxID: string,
  opts: Pick<ResolvedOptions, "domain" | "sandboxUrl">,
  port: number = ENVD_PORT,
): SandboxAddress {
  if (!SANDBOX_ID.test(sandboxID)) {
    throw new SandboxError({
      code: "invalid_argument",
      message: `Invalid sandbox ID ${JSON.stringify(sandboxID)}: expected letters, digits and dashes, as returned when the sandbox was created.`,
    });
  }
  if (opts.sandboxUrl) {
    return {
      baseUrl: opts.sandboxUrl.replace(/\/+$/, ""),
      headers: { "E2b-Sandbox-Id": sandboxID, "E2b-Sandbox-Port": String(port) },
    };
  }
  return { baseUrl: `https://${port}-${sandboxID}.${opts.domain}`, headers: {} };
}

/** `Authorization` value that selects the OS user `user` in envd: Basic auth with an empty password. */
export function basicUserAuth(user: string): string {
  return `Basic ${Buffer.from(`${user}:`, "utf8").toString("base64")}`;
}
