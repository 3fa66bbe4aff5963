// Node.js for each platform, and the plugin's archive around it, for `npm run dist` (../dist.mjs).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { log, npm, PLUGIN, run, sha256 } from "./common.mjs";
import { gzip, tar, tarEntries } from "./formats.mjs";

function semverParts(v) {
  return v.split(".").map(Number);
}

function newer(a, b) {
  const [x, y] = [semverParts(a), semverParts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
  return false;
}

async function registryVersions(name) {
  try {
    const { stdout } = await npm(["view", name, "versions", "--json"]);
    const parsed = JSON.parse(stdout);
    return Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    return [];
  }
}

/**
 * The npm package of Node.js `wanted` for a platform, downloaded once into the cache. When the registry
 * has no package of that version for the platform, the newest of the same major line that meets
 * package.json's engines.node, said on stderr and in release.json.
 */
export async function nodePackage(platform, wanted, minimum, cache) {
  for (const name of platform.packages) {
    const file = join(cache, `${name}-${wanted}.tgz`);
    if (existsSync(file)) return { name, version: wanted, file };
  }
  let best;
  for (const name of platform.packages) {
    const versions = (await registryVersions(name)).filter((v) => /^\d+\.\d+\.\d+$/.test(v));
    if (versions.includes(wanted)) {
      best = { name, version: wanted };
      break;
    }
    for (const v of versions) {
      if (semverParts(v)[0] === semverParts(wanted)[0] && !newer(minimum, v) && (!best || newer(v, best.version))) best = { name, version: v };
    }
  }
  if (!best) throw new Error(`no npm package of Node.js ${semverParts(wanted)[0]}.x for ${platform.os}-${platform.arch} (tried ${platform.packages.join(", ")})`);
  if (best.version !== wanted) log(`${platform.os}-${platform.arch}: the registry has no ${platform.packages.join(" or ")}@${wanted}; using ${best.name}@${best.version}, the newest ${semverParts(wanted)[0]}.x it has`);
  const file = join(cache, `${best.name}-${best.version}.tgz`);
  if (!existsSync(file)) await npm(["pack", `${best.name}@${best.version}`, "--pack-destination", cache, "--silent"]);
  return { ...best, file };
}

/** The Node.js binary (and its LICENSE) in a node-<platform> package; Linux ones stripped when llvm-strip is there. */
export function nodeBinary(pkg, platform, work, licenseFallback) {
  const exe = platform.os === "windows" ? "node.exe" : "node";
  let binary;
  let license;
  for (const entry of tarEntries(gunzipSync(readFileSync(pkg.file)))) {
    if (entry.name === `package/bin/${exe}`) binary = Buffer.from(entry.data);
    else if (entry.name === "package/LICENSE") license = Buffer.from(entry.data);
  }
  if (!binary) throw new Error(`${pkg.name}@${pkg.version} holds no bin/${exe}`);
  let stripped = false;
  if (platform.os === "linux") {
    const file = join(work, `node-${platform.os}-${platform.arch}`);
    writeFileSync(file, binary);
    try {
      execFileSync("llvm-strip", [file], { stdio: "ignore" });
      binary = readFileSync(file);
      stripped = true;
    } catch {
      // no llvm-strip (GNU strip reads only its own architecture): shipped with its symbols
    }
  }
  return { exe, binary, license: license ?? licenseFallback, stripped };
}

const SH_LAUNCHER = `#!/bin/sh
# The native provider plugin of pulumi-sandbox: its one-file bundle, on the Node.js beside it.
case "$0" in */*) dir=\${0%/*} ;; *) dir=. ;; esac
exec "$dir/node" "$dir/${PLUGIN}.js" "$@"
`;
const CMD_LAUNCHER = `@"%~dp0node.exe" "%~dp0${PLUGIN}.js" %*\r\n`;

/** One platform's archive; the same inputs give the same bytes, so a second run takes it from the cache. */
export async function archive(platform, node, code, noticeText, mtime, cache) {
  const windows = platform.os === "windows";
  const files = [
    windows ? { name: `${PLUGIN}.cmd`, mode: 0o755, data: Buffer.from(CMD_LAUNCHER) } : { name: PLUGIN, mode: 0o755, data: Buffer.from(SH_LAUNCHER) },
    { name: `${PLUGIN}.js`, mode: 0o644, data: code },
    { name: node.exe, mode: 0o755, data: node.binary },
    { name: "THIRD-PARTY-NOTICES", mode: 0o644, data: Buffer.from(noticeText) },
    { name: "NODE-LICENSE", mode: 0o644, data: node.license },
  ];
  const key = sha256(JSON.stringify([mtime, files.map((f) => [f.name, f.mode, sha256(f.data)])]));
  const cached = join(cache, `archive-${platform.os}-${platform.arch}`);
  if (existsSync(`${cached}.key`) && readFileSync(`${cached}.key`, "utf8") === key && existsSync(`${cached}.tar.gz`)) return readFileSync(`${cached}.tar.gz`);
  const packed = await gzip(tar(files, mtime));
  writeFileSync(`${cached}.tar.gz`, packed);
  writeFileSync(`${cached}.key`, key);
  return packed;
}

export function nodeBinaryLicense(pkg) {
  for (const entry of tarEntries(gunzipSync(readFileSync(pkg.file)))) if (entry.name === "package/LICENSE") return Buffer.from(entry.data);
  throw new Error(`${pkg.name}@${pkg.version} holds no LICENSE`);
}
