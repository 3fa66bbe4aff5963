// Bench 11 (issue 49): pulling a user's FROM image into a template's root. Ours (emulator/image's
// pullImage, in a worker process) against skopeo copy + umoci unpack, the usual pair of tools for the
// same job without a daemon, from the same loopback registry; then ours again on a warm blob cache,
// which should fetch no layer. Every produced tree is compared with umoci's, so a broken pull cannot
// pass for a fast one.
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, lstatSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { EXPECT, pushBenchImage, startRegistry } from "./image-registry.mjs";
import { fmt, median, ratio, runWorker, table } from "./lib.mjs";

const run = promisify(execFile);

/** One digest of a whole tree: every path, its type and permission bits, a file's bytes, a link's target. */
function treeDigest(root) {
  const hash = createHash("sha256");
  let files = 0;
  const walk = (dir, rel) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(path);
      if (st.isDirectory()) {
        hash.update(`d ${r}\n`);
        walk(path, r);
      } else if (st.isSymbolicLink()) hash.update(`l ${r} ${readlinkSync(path)}\n`);
      else {
        files++;
        hash.update(`f ${r} ${(st.mode & 0o7777).toString(8)} `).update(readFileSync(path)).update("\n");
      }
    }
  };
  walk(root, "");
  const missing = [...EXPECT.present.filter((p) => !existsSync(join(root, p))), ...EXPECT.gone.filter((p) => existsSync(join(root, p))).map((p) => `${p} (whited out)`)];
  return { digest: hash.digest("hex"), files, missing };
}

/** `cmd args` under /usr/bin/time: wall time (ours, ms) and the tool's peak RSS (kB), read off time's last line. */
async function timedTool(cmd, args) {
  const t0 = performance.now();
  const { stderr } = await run("/usr/bin/time", ["-f", "%M", cmd, ...args], { maxBuffer: 1 << 24 });
  return { ms: performance.now() - t0, maxRssKb: Number(stderr.trim().split("\n").at(-1)) };
}

/**
 * Each measurement starts with no dirty pages: the trees a run writes (200 MB) are flushed by the
 * kernel some seconds later, and without this that flush lands on whichever run comes next.
 */
const settle = () => execFileSync("sync");

const range = (xs, digits = 0) => `${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)}`;

/** A checker of produced trees: each must be whole and equal to the first one checked. */
function treeChecker() {
  let reference;
  const check = (what, root) => {
    const tree = treeDigest(root);
    if (tree.missing.length) throw new Error(`${what}: the tree is wrong: ${tree.missing.join(", ")}`);
    reference ??= tree;
    if (tree.digest !== reference.digest || tree.files !== reference.files) throw new Error(`${what}: the tree differs from the first one checked (${tree.files} files vs ${reference.files})`);
    return tree;
  };
  return { check, files: () => reference?.files };
}

/** skopeo + umoci: copy into an empty OCI layout, then unpack it (rootless: no chown, as a user would run it). */
async function toolsRound({ registry, image, dir, check, log, rep }) {
  const [name, tag] = image.ref.slice(registry.host.length + 1).split(":");
  const layout = join(dir, "layout");
  const bundle = join(dir, "bundle");
  const gets = registry.blobGets();
  const bytes = registry.bytesServed();
  settle();
  const copy = await timedTool("skopeo", ["copy", "--insecure-policy", "--src-tls-verify=false", `docker://${registry.host}/${name}:${tag}`, `oci:${layout}:${tag}`]);
  const unpack = await timedTool("umoci", ["raw", "unpack", "--rootless", "--image", `${layout}:${tag}`, bundle]);
  const tree = check("skopeo + umoci", bundle);
  log(`  image rep ${rep}: skopeo ${fmt(copy.ms, 0)} ms + umoci ${fmt(unpack.ms, 0)} ms, ${tree.files} files`);
  rmSync(layout, { recursive: true, force: true });
  rmSync(bundle, { recursive: true, force: true });
  return { ms: copy.ms + unpack.ms, copyMs: copy.ms, unpackMs: unpack.ms, rssKb: Math.max(copy.maxRssKb, unpack.maxRssKb), gets: registry.blobGets() - gets, bytes: registry.bytesServed() - bytes, files: tree.files };
}

/** Ours, into `what`'s target with `cacheDir`: cold (an empty cache) or cached (no layer should come from the registry). */
async function oursRound({ registry, image, dir, check, log, rep }, what, cacheDir) {
  const gets = registry.blobGets();
  const bytes = registry.bytesServed();
  const target = join(dir, what);
  settle();
  const r = await runWorker("image-pull.mjs", { ref: image.ref, target, cacheDir });
  const tree = check(`ours, ${what}`, target);
  log(`  image rep ${rep}: ours ${what} ${fmt(r.ms, 0)} ms, ${fmt(r.maxRssKb / 1024, 0)} MiB peak, ${registry.blobGets() - gets} blob GETs`);
  rmSync(target, { recursive: true, force: true });
  return { ms: r.ms, rssKb: r.maxRssKb, gets: registry.blobGets() - gets, bytes: registry.bytesServed() - bytes, files: tree.files };
}

/** The section's table from each row's rounds. */
function imageTable(rows) {
  const med = (rs, key) => median(rs.map((r) => r[key]));
  const base = med(rows.tools, "ms");
  const line = (label, rs, note) => [
    label, fmt(med(rs, "ms"), 0), range(rs.map((r) => r.ms)), ratio(med(rs, "ms"), base),
    fmt(med(rs, "rssKb") / 1024, 0), fmt(med(rs, "gets"), 0), fmt(med(rs, "bytes") / 1e6, 1), rs[0].files, note,
  ];
  const tools = rows.tools;
  return table(
    ["pull", "wall ms (median)", "min–max", "vs skopeo+umoci", "peak RSS MiB", "blob GETs", "MB fetched", "files", "note"],
    [
      line("ours, cold (empty cache)", rows.ours, "goal ≤ ×1.5"),
      line("skopeo copy + umoci raw unpack, cold", tools, `copy ${fmt(med(tools, "copyMs"), 0)} + unpack ${fmt(med(tools, "unpackMs"), 0)} ms`),
      line("ours, rebuilt on the cached image", rows.warm, "goal: 0 blob GETs"),
    ],
  );
}

export async function imageBench({ reps, log }) {
  const registry = await startRegistry();
  const work = mkdtempSync(join(tmpdir(), "bench-image-pull-"));
  try {
    const t0 = performance.now();
    const image = await pushBenchImage(registry);
    log(`  image: ${image.layers} layers, ${fmt(image.compressed / 1e6)} MB gzip, ${fmt(image.unpacked / 1e6)} MB of tar, built and pushed in ${fmt((performance.now() - t0) / 1000)} s`);
    const rows = { ours: [], tools: [], warm: [] };
    const { check, files } = treeChecker();
    for (let rep = 0; rep < reps; rep++) {
      const dir = join(work, `rep${rep}`);
      mkdirSync(dir);
      const round = { registry, image, dir, check, log, rep };
      rows.tools.push(await toolsRound(round));
      const cacheDir = join(dir, "cache");
      rows.ours.push(await oursRound(round, "cold", cacheDir));
      rows.warm.push(await oursRound(round, "cached", cacheDir));
      rmSync(dir, { recursive: true, force: true });
    }
    const about = `Image: ${image.layers} gzip layers, ${fmt(image.compressed / 1e6)} MB compressed, ${fmt(image.unpacked / 1e6)} MB of tar; ${reps} runs. Every tree had the same ${files()} files, bytes and modes as umoci's.`;
    return `${about}\n\n${imageTable(rows)}`;
  } finally {
    rmSync(work, { recursive: true, force: true });
    await registry.close();
  }
}
