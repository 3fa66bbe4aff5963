// A user's project with pulumi-sandbox INSTALLED (not linked to the source tree): `npm pack` of this
// repository plus @pulumi/pulumi 3.259.0, installed with `npm install --offline` from the local npm
// cache. If the cache cannot serve it, the packed package is unpacked into node_modules and the
// repository's own dependencies are symlinked beside it (still exactly one @pulumi/pulumi).
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./lib.mjs";

const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/** Returns { dir, how, ms }: the project dir (holding bench/fixture), how it was installed, and how long it took. */
export function installProject() {
  const t0 = performance.now();
  const dir = mkdtempSync(join(tmpdir(), "pulumi-sandbox-bench-"));
  const tarball = run("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", dir], ROOT).trim().split("\n").at(-1);
  cpSync(join(ROOT, "bench", "fixture"), dir, { recursive: true });
  const pulumiVersion = JSON.parse(run("node", ["-p", "JSON.stringify(require('@pulumi/pulumi/package.json'))"], ROOT)).version;
  const typesNode = JSON.parse(run("node", ["-p", "JSON.stringify(require('@types/node/package.json'))"], ROOT)).version;
  const deps = {
    "pulumi-sandbox": `file:./${tarball}`,
    "@pulumi/pulumi": pulumiVersion,
    // @pulumi/pulumi accepts any @types/node; pinned so offline resolution picks the cached one.
    "@types/node": typesNode,
  };
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "bench-sandboxes", private: true, dependencies: deps }, null, 2));
  let how = "npm install --offline (packed tarball + @pulumi/pulumi from the npm cache)";
  try {
    run("npm", ["install", "--offline", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], dir);
  } catch (err) {
    how = `unpacked tarball + symlinked repo node_modules (npm install --offline failed: ${String(err.stderr ?? err).split("\n").find((l) => l.includes("error")) ?? "?"})`;
    linkInstall(dir, tarball);
  }
  const count = run("npm", ["ls", "--all", "--parseable", "@pulumi/pulumi"], dir).trim().split("\n").filter((l) => l.endsWith("@pulumi/pulumi")).length;
  if (count !== 1) throw new Error(`the bench project has ${count} copies of @pulumi/pulumi; expected exactly one`);
  return { dir, how, ms: performance.now() - t0 };
}

function linkInstall(dir, tarball) {
  const modules = join(dir, "node_modules");
  mkdirSync(join(modules, "pulumi-sandbox"), { recursive: true });
  run("tar", ["-xzf", join(dir, tarball), "-C", join(modules, "pulumi-sandbox"), "--strip-components=1"], dir);
  for (const name of readdirSync(join(ROOT, "node_modules"))) {
    if (name === "pulumi-sandbox" || name === ".bin" || name.startsWith(".")) continue;
    symlinkSync(join(ROOT, "node_modules", name), join(modules, name));
  }
}
