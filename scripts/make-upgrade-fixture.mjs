#!/usr/bin/env node
// Writes test/e2e/fixtures/upgrade/: the state an older release of pulumi-sandbox leaves behind, which
// test/e2e/upgrade.test.ts replays against HEAD (as pulumi-command's provider-upgrade tests do).
//
//   npm run build && node scripts/make-upgrade-fixture.mjs <commit>
//
// The old release runs from a git worktree of <commit> outside the repository, built there, with the
// fixture's program copied in, so `pulumi-sandbox` (and the provider code the engine loads by that name)
// resolves to the old version. The service is an emulator from this checkout's dist/ (the old one may
// not know how to snapshot). Written: deployment.json (`pulumi stack export`, secrets encrypted with the
// e2e harness's passphrase), emulator-snapshot.json, fixture.json (commit, version, stack, credentials).
// The worktree and the state backend are removed at the end, whatever happens.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensurePulumi } from "./ensure-pulumi.mjs";
import { initStack, pulumiEnv, runPulumi } from "./pulumi-run.mjs";

const root = join(import.meta.dirname, "..");
const FIXTURE = join("test", "e2e", "fixtures", "upgrade");
const PROGRAM = ["Pulumi.yaml", "package.json", "index.js"];
// The stack's name is in every URN of the state: the replay imports it into a stack of the same name.
const STACK = "upgrade";
// The e2e harness's passphrase (test/e2e/harness.ts): the replay decrypts the state's secrets with it.
const PASSPHRASE = "e2e-passphrase";

const git = (...args) => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();
const say = (line) => process.stdout.write(`make-upgrade-fixture: ${line}\n`);

/**
 * node_modules for the worktree: every package of this checkout's (the release's dependencies are the
 * same ones; sameDependencies refuses otherwise) but `pulumi-sandbox`, which `npm run build` links to the worktree.
 */
function linkNodeModules(worktree) {
  const dir = join(worktree, "node_modules");
  mkdirSync(dir);
  for (const name of readdirSync(join(root, "node_modules"))) {
    if (name !== "pulumi-sandbox") symlinkSync(join(root, "node_modules", name), join(dir, name));
  }
}

function sameDependencies(commit) {
  const deps = (text) => JSON.stringify(((p) => [p.dependencies, p.devDependencies])(JSON.parse(text)));
  if (deps(git("show", `${commit}:package.json`)) !== deps(git("show", "HEAD:package.json"))) {
    throw new Error(`${commit}'s package.json names other dependencies than HEAD's: install them in the worktree instead of linking this checkout's node_modules`);
  }
}

async function main() {
  const ref = process.argv[2];
  if (!ref) throw new Error("usage: node scripts/make-upgrade-fixture.mjs <commit>");
  const commit = git("rev-parse", "--verify", `${ref}^{commit}`);
  const version = JSON.parse(git("show", `${commit}:package.json`)).version;
  sameDependencies(commit);
  const { createEmulator } = createRequire(import.meta.url)(join(root, "dist", "emulator", "index.js"));
  const binDir = await ensurePulumi();

  const worktree = mkdtempSync(join(tmpdir(), "pulumi-sandbox-release-"));
  const stateDir = mkdtempSync(join(tmpdir(), "pulumi-sandbox-upgrade-state-"));
  git("worktree", "add", "--detach", worktree, commit);
  let emulator;
  try {
    say(`building pulumi-sandbox ${version} (${commit.slice(0, 7)}) in ${worktree}`);
    linkNodeModules(worktree);
    const env = pulumiEnv({ binDir, stateDir, extra: { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE } });
    execFileSync("npm", ["run", "build"], { cwd: worktree, env, stdio: "inherit" });
    const cwd = join(worktree, FIXTURE);
    mkdirSync(cwd, { recursive: true });
    for (const file of PROGRAM) cpSync(join(root, FIXTURE, file), join(cwd, file));

    emulator = await createEmulator({ buildDelayMs: 500 });
    await initStack({ cwd, env, stack: STACK, service: emulator });
    const pulumi = async (...args) => {
      const res = await runPulumi([...args, "--stack", STACK], { cwd, env, onOutput: (t) => process.stdout.write(t) });
      if (res.code !== 0) throw new Error(`pulumi ${args.join(" ")} exited ${res.code}`);
      return res;
    };
    say(`pulumi up with the ${version} runtime`);
    await pulumi("up", "--yes");
    const deployment = await pulumi("stack", "export");
    const out = join(root, FIXTURE);
    writeFileSync(join(out, "deployment.json"), deployment.stdout);
    writeFileSync(join(out, "emulator-snapshot.json"), `${JSON.stringify(emulator.snapshot(), null, 2)}\n`);
    const meta = { commit, version, stack: STACK, passphrase: PASSPHRASE, apiKey: emulator.apiKey, accessToken: emulator.accessToken, madeAt: new Date().toISOString() };
    writeFileSync(join(out, "fixture.json"), `${JSON.stringify(meta, null, 2)}\n`);
    say(`wrote ${FIXTURE}/{deployment,emulator-snapshot,fixture}.json from ${version} (${commit.slice(0, 7)})`);
  } finally {
    await emulator?.close();
    rmSync(stateDir, { recursive: true, force: true });
    git("worktree", "remove", "--force", worktree);
  }
}

main().catch((err) => {
  process.stderr.write(`make-upgrade-fixture: ${err.message}\n`);
  process.exit(1);
});
