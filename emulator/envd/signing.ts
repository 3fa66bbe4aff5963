/**
 * Signed file URLs (docs/service.md#signed-file-urls): envd lets `GET`/`POST /files` of a secure
 * sandbox through without `X-Access-Token` when the query carries `signature` (and optionally
 * `signature_expiration`), a hash of the path, operation, user and the sandbox's access token, so
 * that a URL can be handed to a browser. The SDK's `downloadUrl`/`uploadUrl` make them.
 *
 * Such a URL names no sandbox when the client was given one sandbox URL for all (`E2B_SANDBOX_URL`,
 * as with the emulator): the SDK builds it from that URL alone. The emulator then finds the sandbox
 * whose token the signature was made with (`signedTarget`), which only that sandbox can match.
 */
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { sameSecret } from "../auth";
import type { SandboxRuntime } from "../types";
import { header } from "./gate";

export type SignedOperation = "read" | "write";

/** envd's `v1_` signature: base64 (unpadded) of SHA-256 over `path:operation:user:token[:expiration]`. */
export function fileSignature(path: string, operation: SignedOperation, username: string, token: string, expiration?: string): string {
  const parts = [path, operation, username, token, ...(expiration === undefined ? [] : [expiration])];
  return `v1_${createHash("sha256").update(parts.join(":")).digest("base64").replace(/=+$/, "")}`;
}

/** What a failed check answers: its HTTP status and envd's message. */
export interface SigningRefusal {
  status: number;
  message: string;
}

/** The query's `signature_expiration` as envd's int parameter; a refusal when it is not one. */
function expirationOf(query: URLSearchParams): { text?: string; refusal?: SigningRefusal } {
  const text = query.get("signature_expiration");
  if (text === null) return {};
  // oapi-codegen binds the parameter before the handler runs: a non-integer is its 400.
  if (!/^[+-]?\d+$/.test(text)) return { refusal: { status: 400, message: `Invalid format for parameter signature_expiration: ${text}` } };
  return { text: String(Number(text)) };
}

/**
 * envd's validateSigning for one `/files` request: nothing to check on a sandbox without a token;
 * a token in the header must be the sandbox's; otherwise the signature must match and not have
 * expired. Undefined when the request may go on.
 */
export function checkSigning(req: IncomingMessage, query: URLSearchParams, runtime: SandboxRuntime, operation: SignedOperation): SigningRefusal | undefined {
  const token = runtime.envdAccessToken;
  if (!runtime.secure || token === null) return undefined;
  const fromHeader = header(req, "x-access-token");
  if (fromHeader !== undefined && fromHeader !== "") {
    return sameSecret(fromHeader, token) ? undefined : { status: 401, message: "access token present in header but does not match" };
  }
  const signature = query.get("signature");
  if (signature === null) return { status: 401, message: "missing signature query parameter" };
  const expiration = expirationOf(query);
  if (expiration.refusal) return expiration.refusal;
  const expected = fileSignature(query.get("path") ?? "", operation, query.get("username") ?? "", token, expiration.text);
  if (!sameSecret(signature, expected)) return { status: 401, message: "invalid signature" };
  if (expiration.text !== undefined && Number(expiration.text) < Math.floor(Date.now() / 1000)) {
    return { status: 401, message: "signature is already expired" };
  }
  return undefined;
}

/** The operation a `/files` request is signed for, from its method. */
export const operationOf = (method: string | undefined): SignedOperation => (method === "POST" ? "write" : "read");

/** A `/files` request carrying a signature: one that may name its sandbox by it alone. */
export function isSignedFiles(req: IncomingMessage): boolean {
  const url = new URL(req.url ?? "/", "http://envd");
  return url.pathname === "/files" && url.searchParams.has("signature");
}

/**
 * The running sandbox a signed `/files` request that names none was signed for, or undefined.
 * Only a secure sandbox's token can have made a signature; the expiration is part of what is
 * signed, so an expired URL still finds its sandbox (and is refused there, as envd refuses it).
 */
export function signedTarget(req: IncomingMessage, running: readonly SandboxRuntime[]): SandboxRuntime | undefined {
  const url = new URL(req.url ?? "/", "http://envd");
  const signature = url.searchParams.get("signature");
  if (!isSignedFiles(req) || signature === null) return undefined;
  const expiration = expirationOf(url.searchParams).text;
  const [path, username] = [url.searchParams.get("path") ?? "", url.searchParams.get("username") ?? ""];
  return running.find((r) => r.secure && r.envdAccessToken !== null && sameSecret(signature, fileSignature(path, operationOf(req.method), username, r.envdAccessToken, expiration)));
}
