/**
 * schema.json as the package ships it, which the plugin's GetSchema serves. A module of its own because
 * the single-file plugin of a release (scripts/dist.mjs) has no package folder to read the file from:
 * that build puts this module's answer in its place, the file's text at build time.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

export function schemaText(): string {
  // The package root, found the way the runtime finds its version (by the package's own name).
  return readFileSync(join(dirname(require.resolve("pulumi-sandbox/package.json")), "schema.json"), "utf8");
}
