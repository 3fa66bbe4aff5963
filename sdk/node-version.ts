/**
 * The oldest Node.js this package runs on, checked where the package is loaded, before anything else:
 * on an older Node the HTTP client (undici 8, which needs 22.19) fails deep inside with an error that
 * names neither the cause nor the fix.
 */
export const MINIMUM_NODE = "22.19.0";

/** `a < b` for `x.y.z` versions (a leading `v` and missing parts allowed). */
export function versionOlder(a: string, b: string): boolean {
  const pa = a.replace(/^v/, "").split(".").map((n) => parseInt(n, 10) || 0);
  const pb = b.replace(/^v/, "").split(".").map((n) => parseInt(n, 10) || 0);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) < (pb[i] ?? 0);
  return false;
}

/** The reason `version` is too old, or undefined when it is new enough. */
export function nodeTooOld(version: string): string | undefined {
  if (!versionOlder(version, MINIMUM_NODE)) return undefined;
  return (
    `pulumi-sandbox needs Node.js ${MINIMUM_NODE} or newer, and this is Node.js ${version}. ` +
    "Install a newer Node.js (for example `npm install --save-dev node@24` and put node_modules/.bin first on PATH), then run again."
  );
}

const tooOld = nodeTooOld(process.versions.node);
if (tooOld) throw new Error(tooOld);
