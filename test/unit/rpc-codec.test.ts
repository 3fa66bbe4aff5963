/**
 * The in-sandbox API's codec option: binary unless the option or PULUMI_SANDBOX_RPC_CODEC says json,
 * the option winning, anything else refused with a message naming where the value came from.
 */
import { describe, expect, test } from "vitest";
import { resolveOptions } from "../../sdk/config";
import { SandboxRpc } from "../../sdk/transport/rpc";

describe("rpcCodec", () => {
  test("binary by default", () => {
    expect(resolveOptions({}, {}).rpcCodec).toBe("binary");
  });

  test("the env var picks json (any case, trimmed); an empty one counts as unset", () => {
    expect(resolveOptions({}, { PULUMI_SANDBOX_RPC_CODEC: " JSON " }).rpcCodec).toBe("json");
    expect(resolveOptions({}, { PULUMI_SANDBOX_RPC_CODEC: "" }).rpcCodec).toBe("binary");
  });

  test("the option wins over the env var", () => {
    expect(resolveOptions({ rpcCodec: "binary" }, { PULUMI_SANDBOX_RPC_CODEC: "json" }).rpcCodec).toBe("binary");
    expect(resolveOptions({ rpcCodec: "json" }, {}).rpcCodec).toBe("json");
  });

  test("an unknown codec is refused, naming the option or the env var", () => {
    expect(() => resolveOptions({ rpcCodec: "proto" as "binary" }, {})).toThrow(
      'the rpcCodec option must be "binary" or "json", got "proto": set it to one of them, or leave it unset for binary.',
    );
    expect(() => resolveOptions({}, { PULUMI_SANDBOX_RPC_CODEC: "xml" })).toThrow(
      'the PULUMI_SANDBOX_RPC_CODEC environment variable must be "binary" or "json", got "xml": set it to one of them, or leave it unset for binary.',
    );
  });

  test("a SandboxRpc carries the resolved codec", () => {
    expect(new SandboxRpc({ sandboxID: "sbx1", options: { sandboxUrl: "http://127.0.0.1:9" } }).codec).toBe("binary");
    expect(new SandboxRpc({ sandboxID: "sbx1", options: { sandboxUrl: "http://127.0.0.1:9", rpcCodec: "json" } }).codec).toBe("json");
  });
});
