/**
 * A throwaway Pulumi project directory in which `pulumi-sandbox` is installed the way a user has it:
 * `node_modules/pulumi-sandbox/` holding the package.json (whose exports map `pulumi-sandbox/runtime`)
 * and a fresh build of provider/ and sdk/. The provider host runs with this as its cwd, so the
 * serialized provider's `require("pulumi-sandbox/runtime")` loads the code under test, not whatever
 * the shared dist/ holds at the moment (other work rebuilds it, or leaves it stale).
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const REPO = resolve(__dirname, "../..");

export interface Project {
  dir: string;
  remove(): void;
}

/** `source`: the project whose provider/ and sdk/ are built (a copy with a kind added, test/provider/kind-folder.test.ts). */
export function makeProject(source = REPO): Project {
  const work = mkdtempSync(join(tmpdir(), "provider-host-test-"));
  const pkg = join(work, "project", "node_modules", "pulumi-sandbox");
  mkdirSync(pkg, { recursive: true });
  const tsconfig = join(work, "tsconfig.json");
  writeFileSync(tsconfig, JSON.stringify({
    extends: join(REPO, "tsconfig.build.json"),
    compilerOptions: { rootDir: source, outDir: join(pkg, "dist"), declaration: false, typeRoots: [join(REPO, "node_modules/@types")] },
    include: [join(source, "provider"), join(source, "sdk")],
  }));
  const tsc = spawnSync(process.execPath, [join(REPO, "node_modules/@typescript/native/bin/tsc"), "-p", tsconfig], { encoding: "utf8" });
  if (tsc.status !== 0) throw new Error(`building the provider failed:\n${tsc.stdout}${tsc.stderr}`);
  copyFileSync(join(REPO, "package.json"), join(pkg, "package.json"));
  // The package's own dependencies (zod, undici, connect) resolve through the repo's node_modules.
  symlinkSync(join(REPO, "node_modules"), join(pkg, "node_modules"), "dir");
  return { dir: join(work, "project"), remove: () => rmSync(work, { recursive: true, force: true }) };
}
