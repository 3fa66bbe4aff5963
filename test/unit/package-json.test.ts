/**
 * What package.json and the lockfile promise about installing this repository and this package; the
 * install itself is proved by .ci/run (npm ci, and a fresh clone installed with npm 12).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";

const ROOT = join(__dirname, "..", "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  allowScripts: Record<string, boolean>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
  packages: Record<string, { version?: string; hasInstallScript?: boolean }>;
};
const nameOf = (path: string) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);

describe("allowScripts: the dependency install scripts npm 12 runs", () => {
  const withScripts = Object.entries(lock.packages).filter(([path, p]) => path !== "" && p.hasInstallScript);

  test("every locked package with an install script is approved or denied, so npm 12 neither skips one silently nor stops at one (--strict-allow-scripts)", () => {
    expect(withScripts.length).toBeGreaterThan(0);
    for (const [path] of withScripts) expect(pkg.allowScripts, `${nameOf(path)} has an install script`).toHaveProperty([nameOf(path)]);
  });

  test("node's preinstall, which brings the project's Node, is approved; the others are denied", () => {
    // @bufbuild/buf's postinstall only checks that its platform package is there (else it runs a
    // nested npm install); protobufjs's only warns about its dependents' version scheme; esbuild's
    // (npm run dist's bundler) checks its platform package and, on Unix, puts the native binary in place
    // of its JS launcher, which only starts the CLI faster: the dist script calls its JS API.
    expect(pkg.allowScripts).toEqual({ node: true, "@bufbuild/buf": false, protobufjs: false, esbuild: false });
    expect(pkg.devDependencies.node).toBe(process.versions.node);
  });

  test("entries are bare names: this lockfile has no resolved URLs (omit-lockfile-registry-resolved), and npm refuses a name@version approval it cannot check against one", () => {
    // `npm install-scripts approve` writes name@version by default: use --no-allow-scripts-pin. The exact
    // devDependency and the lockfile's integrity still pin the tarball a bare name approves.
    for (const key of Object.keys(pkg.allowScripts)) expect(key).toMatch(/^(@[a-z0-9-._]+\/)?[a-z0-9-._]+$/);
  });
});

describe("runtime dependencies: ranges, as a library declares them", () => {
  test("each is a range from the version the lockfile installs, so the suite runs the lowest a user can get (the newest: test/e2e/consumer.test.ts)", () => {
    for (const [name, range] of Object.entries(pkg.dependencies)) {
      const locked = lock.packages[`node_modules/${name}`]?.version;
      expect(range, name).toBe(`${name.startsWith("@connectrpc/") ? "~" : "^"}${locked}`);
    }
  });

  test("@pulumi/pulumi is a dependency, as in Pulumi's own packages, not a peer: npm dedupes it to the program's copy in range", () => {
    expect(pkg.dependencies["@pulumi/pulumi"]).toMatch(/^\^3\./);
    expect(pkg.peerDependencies).toBeUndefined();
  });
});

describe("the compilers", () => {
  test("`tsc` (npm run build, typecheck, test) is TypeScript 7: @typescript/native sorts before typescript, so npm links its bin", () => {
    const native = pkg.devDependencies["@typescript/native"]?.replace(/^npm:typescript@/, "");
    expect(native).toMatch(/^7\./);
    expect(execFileSync(join(ROOT, "node_modules", ".bin", "tsc"), ["--version"], { encoding: "utf8" }).trim()).toBe(`Version ${native}`);
  });

  test("`typescript` stays 5.9 with its compiler API: ts-node needs it (Pulumi runs the TypeScript examples through it), and @pulumi/pulumi's peer range stops below 7", () => {
    const ts = require("typescript") as { version: string; createProgram?: unknown };
    expect(ts.version).toBe(pkg.devDependencies.typescript);
    expect(typeof ts.createProgram).toBe("function");
    const peer = (require("@pulumi/pulumi/package.json") as { peerDependencies: Record<string, string> }).peerDependencies.typescript;
    expect(peer).toMatch(/< ?7$/);
  });
});

describe("the examples ask for this package's version", () => {
  const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
  const examples = readdirSync(join(ROOT, "examples")).filter((d) => existsSync(join(ROOT, "examples", d, "package.json")));

  test("each example's pulumi-sandbox range takes the version here, so a copied example installs what was tested", () => {
    expect(examples.length).toBeGreaterThan(0);
    for (const dir of examples) {
      const deps = (JSON.parse(readFileSync(join(ROOT, "examples", dir, "package.json"), "utf8")) as { dependencies?: Record<string, string> }).dependencies ?? {};
      if (deps["pulumi-sandbox"] === undefined) continue;
      // One form for all, so the check needs no semver parser: a caret range of exactly this version.
      expect(deps["pulumi-sandbox"], `examples/${dir}/package.json: pulumi-sandbox`).toBe(`^${version}`);
    }
  });
});
