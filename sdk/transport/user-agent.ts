/**
 * The User-Agent both halves of the sdk send. Its own module so the Connect client does not load the
 * HTTP client (undici) just to read a constant.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** `pulumi-sandbox/<version>`: our own product token (never the e2b SDK's, see docs/service.md#user-agent). */
export const USER_AGENT = `pulumi-sandbox/${packageVersion()}`;

/** The version in this package's package.json, found from the source tree or from dist/. */
function packageVersion(): string {
  for (const up of ["..", "../.."]) {
    try {
      const pkg = JSON.parse(readFileSync(join(__dirname, up, "package.json"), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "pulumi-sandbox" && pkg.version) return pkg.version;
    } catch {
      // not at this level; try the next
    }
  }
  return "0.0.0";
}
