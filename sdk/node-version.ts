/**
 * The oldest Node.js this package runs on, checked where the package is loaded, before anything else:
 * on an older Node the HTTP client (undici 8, which needs 22.19) fails deep inside with an error that
 * names neither the cause nor the fix.
 */
export const MINIMUM_NODE = "22.19.0";

/** The reason `version` is too old, or undefined when it is new enough. */
export function nodeTooOld(version: string): string | undefined {
  const [major = 0, minor = 0, patch = 0] = version.replace(/^v/, "").split(".").map(Number);
  const [minMajor = 0, minMinor = 0, minPatch = 0] = MINIMUM_NODE.split(".").map(Number);
  const older = major !== minMajor ? major < minMajor : minor !== minMinor ? minor < minMinor : patch < minPatch;
  if (!older) return undefined;
  return (
    `pulumi-sandbox needs Node.js ${MINIMUM_NODE} or newer, and this is Node.js ${version}. ` +
    "Install a newer Node.js (for example `npm install --save-dev node@22` and put node_modules/.bin first on PATH), then run again."
  );
}

const tooOld = nodeTooOld(process.versions.node);
if (tooOld) throw new Error(tooOld);
