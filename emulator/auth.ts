/**
 * Credential checks of the platform API. Each route names the schemes it accepts, as the real
 * service's OpenAPI security table does: most take only `X-API-Key`, the legacy v1 template builds
 * take only `Authorization: Bearer <access token>`, and PATCH /v2/templates/{id} takes either.
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { ApiError } from "./http";

/** Which credentials a route accepts. */
export type AuthMode = "apiKey" | "accessToken" | "either";

/** The one valid API key and access token of an emulator start. */
export interface Credentials {
  apiKey: string;
  accessToken: string;
}

/** The real service's 401 messages (infra: packages/auth middleware). */
export const INVALID_API_KEY = "Invalid API key, please visit https://e2b.dev/docs/api-key for more information.";
export const INVALID_ACCESS_TOKEN = "Invalid Access token, try to login again by running `e2b auth login`.";

/** Throws a 401 unless the request carries a credential the mode accepts. */
export function authenticate(mode: AuthMode, headers: IncomingHttpHeaders, creds: Credentials): void {
  const keyOk = mode !== "accessToken" && sameSecret(header(headers, "x-api-key"), creds.apiKey);
  const tokenOk = mode !== "apiKey" && sameSecret(bearer(headers), creds.accessToken);
  if (keyOk || tokenOk) return;
  throw new ApiError(401, mode === "accessToken" ? INVALID_ACCESS_TOKEN : INVALID_API_KEY);
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function bearer(headers: IncomingHttpHeaders): string | undefined {
  const value = header(headers, "authorization");
  const match = value === undefined ? null : /^Bearer\s+(.+)$/i.exec(value.trim());
  return match?.[1];
}

/**
 * Constant-time comparison of a credential, so the emulator does not teach a timing side channel
 * by example (envd's own token check is constant-time too). Only a length difference shows.
 */
export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
