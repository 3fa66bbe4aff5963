// The image bench's registry and image: CNCF distribution (/usr/bin/docker-registry) on loopback,
// with its access log read to count blob GETs (no proxy in the path, so neither client pays for one),
// and a ~200 MB multi-layer gzip image built here from a seeded generator, so every run pulls the
// same bytes. The test fixture (test/fixtures/oci-registry.ts) is TypeScript the bench cannot import
// from dist/, so this is the bench's own small starter of the same kind.
import { execFile, execFileSync, spawn } from "node:child_process";
import { createCipheriv, createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

/** Starts the registry; `blobGets()` and `bytesServed()` are read off its access log, counted since start. */
export async function startRegistry() {
  const dir = mkdtempSync(join(tmpdir(), "bench-registry-"));
  const port = await freePort();
  const config = join(dir, "config.yml");
  // Level info: the access log ("response completed", with method and URI) is what counts the fetches.
  writeFileSync(config, ["version: 0.1", "log:", "  level: info", "storage:", "  filesystem:", `    rootdirectory: ${join(dir, "store")}`, "http:", `  addr: 127.0.0.1:${port}`, ""].join("\n"));
  const child = spawn("/usr/bin/docker-registry", ["serve", config], { stdio: ["ignore", "ignore", "pipe"] });
  let gets = 0;
  let served = 0;
  let tail = "";
  let partial = "";
  child.stderr.on("data", (b) => {
    const lines = (partial + b).split("\n");
    partial = lines.pop();
    for (const line of lines) {
      if (!/response completed/.test(line) || !/http\.request\.method=GET/.test(line)) continue;
      served += Number(/http\.response\.written=(\d+)/.exec(line)?.[1] ?? 0);
      if (/\/blobs\/sha256:/.test(line)) gets++;
    }
    tail = (tail + b).slice(-2000);
  });
  const host = `127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited: ${tail}`);
    if (await fetch(`http://${host}/v2/`).then((r) => r.ok, () => false)) break;
    if (i > 200) throw new Error(`docker-registry did not answer: ${tail}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    host,
    blobGets: () => gets,
    /** Body bytes of every GET answered since start (manifests and blobs). */
    bytesServed: () => served,
    async close() {
      child.kill("SIGTERM");
      if (child.exitCode === null) await new Promise((r) => child.once("exit", r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Seeded pseudo-random bytes: AES-CTR of zeros under a key made from the seed (fast, and the same every run). */
function bytesOf(seed, size) {
  const key = createHash("sha256").update(seed).digest();
  return createCipheriv("aes-256-ctr", key, Buffer.alloc(16)).update(Buffer.alloc(size));
}

const WORDS = "the of sandbox template layer image build registry digest manifest config entry file directory whiteout cache blob pull push tag root user".split(" ");
/** Text of seeded words: compresses as source and config files do, neither to nothing nor not at all. */
function textOf(seed, size) {
  const r = bytesOf(seed, size);
  let out = "";
  for (let i = 0; out.length < size; i++) out += WORDS[r[i % r.length] % WORDS.length] + (r[(i + 7) % r.length] % 11 === 0 ? "\n" : " ");
  return out.slice(0, size);
}

/** Files written into `dir`, by the layer's plan. */
function fill(dir, files) {
  for (const [path, content] of files) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

/**
 * The five layers: many small text files; a few big random files; a mix of medium random and text
 * files; a layer of whiteouts (one big file and one directory of the first layer) with new files;
 * a last small layer. What a Python or Node base image with an app on top is like, in kind.
 */
function layerPlans() {
  const small = [];
  for (let i = 0; i < 4000; i++) small.push([`usr/lib/pkg${i % 40}/mod${i}.py`, textOf(`small${i}`, 1000 + (i % 9) * 700)]);
  small.push(["usr/share/doc/readme.txt", textOf("readme", 20_000)]);
  const big = [];
  for (let i = 0; i < 4; i++) big.push([`opt/models/weights${i}.bin`, bytesOf(`big${i}`, 28_000_000)]);
  const mixed = [];
  for (let i = 0; i < 600; i++) mixed.push([`app/assets/a${i}.dat`, i % 3 ? bytesOf(`mid${i}`, 80_000) : textOf(`mid${i}`, 60_000)]);
  const late = [["opt/models/.wh.weights3.bin", ""], ["usr/lib/.wh.pkg7", ""], ["opt/models/weights4.bin", bytesOf("big4", 20_000_000)]];
  for (let i = 0; i < 200; i++) late.push([`app/src/f${i}.js`, textOf(`src${i}`, 4000)]);
  const last = [["etc/app.conf", textOf("conf", 5000)], ["app/assets/a0.dat", bytesOf("a0-new", 100_000)]];
  return [small, big, mixed, late, last];
}

/** Paths the bench checks in each produced tree: what the whiteouts removed, and files of every layer. */
export const EXPECT = {
  gone: ["opt/models/weights3.bin", "usr/lib/pkg7"],
  present: ["usr/lib/pkg0/mod0.py", "opt/models/weights0.bin", "opt/models/weights4.bin", "app/assets/a0.dat", "app/src/f199.js", "etc/app.conf"],
};

const sha = (b) => `sha256:${createHash("sha256").update(b).digest("hex")}`;

/** Builds the image as an OCI layout (gzip layers by GNU tar) and pushes it with skopeo; returns its reference and sizes. */
export async function pushBenchImage(registry, name = "bench/app", tag = "v1") {
  const work = mkdtempSync(join(tmpdir(), "bench-image-"));
  try {
    const layout = join(work, "layout");
    mkdirSync(join(layout, "blobs", "sha256"), { recursive: true });
    const put = (data, mediaType) => {
      const digest = sha(data);
      writeFileSync(join(layout, "blobs", "sha256", digest.slice(7)), data);
      return { mediaType, digest, size: data.length };
    };
    const layers = [];
    const diffIds = [];
    let unpacked = 0;
    for (const [i, files] of layerPlans().entries()) {
      const dir = join(work, `layer${i}`);
      fill(dir, files);
      const tar = execFileSync("tar", ["--numeric-owner", "--owner=0", "--group=0", "--mtime=2024-01-01", "--sort=name", "-cf", "-", "-C", dir, "."], { maxBuffer: 1 << 30 });
      unpacked += tar.length;
      diffIds.push(sha(tar));
      const gz = execFileSync("gzip", ["-6", "-n", "-c"], { input: tar, maxBuffer: 1 << 30 });
      layers.push(put(gz, "application/vnd.oci.image.layer.v1.tar+gzip"));
      rmSync(dir, { recursive: true, force: true });
    }
    const configDoc = { architecture: "amd64", os: "linux", config: { Env: ["PATH=/usr/bin:/bin"], WorkingDir: "/app" }, rootfs: { type: "layers", diff_ids: diffIds } };
    const manifest = { schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json", config: put(Buffer.from(JSON.stringify(configDoc)), "application/vnd.oci.image.config.v1+json"), layers };
    const top = put(Buffer.from(JSON.stringify(manifest)), manifest.mediaType);
    writeFileSync(join(layout, "index.json"), JSON.stringify({ schemaVersion: 2, manifests: [{ ...top, annotations: { "org.opencontainers.image.ref.name": tag } }] }));
    writeFileSync(join(layout, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
    await run("skopeo", ["copy", "--insecure-policy", "--dest-tls-verify=false", `oci:${layout}:${tag}`, `docker://${registry.host}/${name}:${tag}`]);
    return { ref: `${registry.host}/${name}:${tag}`, layers: layers.length, compressed: layers.reduce((n, l) => n + l.size, 0), unpacked };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
