/**
 * The page's own files, served as they are (no bundle, no framework, nothing fetched from elsewhere).
 * They are not TypeScript, so the build does not copy them: they are read from `emulator/page/assets`
 * of the package (package.json `files` ships that folder), from the source tree and from dist alike.
 * The headers keep the page to its own origin: its script only, no frame, no referrer.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Reply } from "../http";

/** Where the page is served, on the emulator's own port. */
export const PAGE_PATH = "/_emulator/ui/";

const TYPES: Record<string, string> = {
  "index.html": "text/html; charset=utf-8",
  "app.js": "text/javascript; charset=utf-8",
  "ui.js": "text/javascript; charset=utf-8",
  "sandbox-live.js": "text/javascript; charset=utf-8",
  "style.css": "text/css; charset=utf-8",
};

const HEADERS = {
  "cache-control": "no-store",
  "content-security-policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/** The assets folder: beside this file in the source tree, at the package root from dist/emulator/page. */
function assetsDir(): string {
  const candidates = [join(__dirname, "assets"), join(__dirname, "..", "..", "..", "emulator", "page", "assets")];
  const found = candidates.find((dir) => existsSync(join(dir, "index.html")));
  if (!found) throw new Error(`the page's files are missing (looked in ${candidates.join(", ")})`);
  return found;
}

/** One of the page's files, by name (`index.html`, `app.js`, `style.css`...). */
export function asset(name: keyof typeof TYPES & string): Reply {
  const body = readFileSync(join(assetsDir(), name));
  return { status: 200, body, headers: { ...HEADERS, "content-type": TYPES[name]! } };
}

/** The page's link, signed in: the key in the fragment (`#key=`), which a browser never sends to a server. */
export function pageUrlOf(apiUrl: string, apiKey: string): string {
  return `${apiUrl}${PAGE_PATH}#key=${encodeURIComponent(apiKey)}`;
}
