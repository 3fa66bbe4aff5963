/**
 * The rule of CONTRIBUTING.md's layout: in the sdk and the provider, only `sdk/transport/` imports the
 * network libraries (undici, connect-node). Each SandboxRpc and PlatformClient owns its pools there and
 * closes them; a module elsewhere that called undici would reach its global pool, which nothing closes
 * and which no client's timeouts or headers govern. Within transport/, undici is used by `http.ts`
 * (the platform API) and `rpc-stream.ts` (the binary command-output stream, kept while bench 2 shows
 * it pays), connect-node by `rpc.ts`.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, test } from "vitest";

const ROOT = join(__dirname, "..", "..");
const NETWORK = /(?:from|import|require\()\s*["'](undici|@connectrpc\/connect-node)(?:\/[^"']*)?["']/g;
const ALLOWED: Record<string, string[]> = {
  undici: ["sdk/transport/http.ts", "sdk/transport/rpc-stream.ts"],
  "@connectrpc/connect-node": ["sdk/transport/rpc.ts"],
};

function* tsFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* tsFiles(path);
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) yield path;
  }
}

/** library → the files of `folders` that import it, relative to the root. */
function networkImports(root: string, folders: string[]): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const folder of folders) {
    for (const file of tsFiles(join(root, folder))) {
      for (const m of readFileSync(file, "utf8").matchAll(NETWORK)) (found[m[1]!] ??= []).push(relative(root, file).split("\\").join("/"));
    }
  }
  for (const files of Object.values(found)) files.sort();
  return found;
}

describe("network libraries", () => {
  test("in sdk/ and provider/, only the files of sdk/transport/ named for it import undici or connect-node", () => {
    expect(networkImports(ROOT, ["sdk", "provider"])).toEqual(ALLOWED);
  });
});
