/**
 * Sandboxes for the in-sandbox client's tests: created through the emulator's REST API with plain
 * fetch (the platform client is tested elsewhere), from template `base`.
 */
import type { Emulator } from "../../emulator";
import type { RpcCodec } from "../../sdk/config";
import type { SandboxTarget } from "../../sdk/transport/rpc";

/**
 * Creates a running sandbox (`secure` for one that needs its access token) and its client target,
 * speaking `rpcCodec` (the sdk's default when omitted).
 */
export async function createSandbox(emu: Emulator, opts: { secure?: boolean; rpcCodec?: RpcCodec } = {}): Promise<Required<Omit<SandboxTarget, "interceptors">>> {
  const res = await fetch(`${emu.apiUrl}/sandboxes`, {
    method: "POST",
    headers: { "X-API-Key": emu.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ templateID: "base", timeout: 600, secure: opts.secure ?? false }),
  });
  if (res.status !== 201) throw new Error(`creating a sandbox answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { sandboxID: string; envdAccessToken: string | null };
  return { sandboxID: body.sandboxID, envdAccessToken: body.envdAccessToken, options: { sandboxUrl: emu.sandboxUrl, rpcCodec: opts.rpcCodec } };
}
