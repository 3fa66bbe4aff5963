/**
 * A short use of one sandbox's filesystem service: the provider's own marks inside a sandbox (a claim,
 * ./claim.ts; a fork's mark, ./fork.ts). The in-sandbox clients are loaded at the first use: they cost
 * a host ~45 ms to load, and most sandboxes never need them.
 */
import type { FilesystemClient } from "../../../sdk/in-sandbox/filesystem";
import { clientOptions, platform } from "../../runtime/context";

/**
 * Runs `use` on the filesystem of `sandboxID`, with its access token (asked of the service, GET
 * /sandboxes/{id}, when not given), on a connection closed after.
 */
export async function inSandbox<T>(sandboxID: string, use: (fs: FilesystemClient) => Promise<T>, envdAccessToken?: string | null): Promise<T> {
  const token = envdAccessToken === undefined ? (await platform().sandboxes.get(sandboxID)).envdAccessToken ?? null : envdAccessToken;
  const [{ FilesystemClient }, { SandboxRpc }] = await Promise.all([import("../../../sdk/in-sandbox/filesystem.js"), import("../../../sdk/transport/rpc.js")]);
  const rpc = new SandboxRpc({ sandboxID, envdAccessToken: token, options: clientOptions() });
  try {
    return await use(new FilesystemClient(rpc));
  } finally {
    void rpc.close().catch(() => undefined);
  }
}
