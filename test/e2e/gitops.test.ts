/**
 * examples/gitops as a repository's CI would run it, against the emulator: a pull request is opened
 * (preview, the plan's comment, its own environment), merged (main's `up`), and closed (its stack
 * destroyed and removed). Each job reads its steps from the example's workflow files and runs them in
 * a fresh copy of the example (a job's checkout keeps nothing of an earlier job), with the env the
 * workflows give from CI secrets and variables (./workflow-runner.ts). Only GitHub's CLI is a stand-in,
 * recording the comment it was asked to post. Tests share one backend and emulator and run in order.
 */
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { ensurePulumi } from "../../scripts/ensure-pulumi.mjs";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { pulumiEnv, runPulumi } from "../../scripts/pulumi-run.mjs";
import { ROOT } from "./harness";
import { describeLeaks, filesUnder, findLeaks, type Place } from "./secrets";
import { runJob, workflowsFor, type Contexts, type GithubEvent, type StepResult } from "./workflow-runner";

const EXAMPLE = join(ROOT, "examples", "gitops");
const PR = 7;
const passphrase = "gitops-e2e-passphrase-31f9";

let emulator: Emulator;
let stateDir: string;
let ghDir: string;
let runnerEnv: Record<string, string | undefined>;
let ctx: Contexts;
const printed: Place[] = [];
const checkouts: string[] = [];

beforeAll(async () => {
  const binDir: string = await ensurePulumi();
  emulator = await createEmulator();
  stateDir = mkdtempSync(join(tmpdir(), "pulumi-sandbox-gitops-"));
  ghDir = mkdtempSync(join(tmpdir(), "pulumi-sandbox-gitops-gh-"));
  // GitHub's CLI stand-in: records its arguments, whether it got a token, and the comment's body.
  writeFileSync(join(ghDir, "gh"), [
    "#!/usr/bin/env bash",
    'printf "%s\\n" "$*" >>"$GH_STANDIN_LOG"',
    'printf "token:%s repo:%s\\n" "${GH_TOKEN:+set}" "$GH_REPO" >>"$GH_STANDIN_LOG"',
    'while [ $# -gt 0 ]; do [ "$1" = --body-file ] && cp "$2" "$GH_STANDIN_LOG.body"; shift; done',
    "",
  ].join("\n"));
  chmodSync(join(ghDir, "gh"), 0o755);
  const base = pulumiEnv({ binDir, stateDir });
  // The runner has the CLI, Node and gh on PATH, and CI=true; the backend and credentials come only
  // from the workflows' env, so a workflow that stops passing one fails here.
  runnerEnv = { ...base, PATH: `${ghDir}:${base.PATH}`, CI: "true", GITHUB_ACTIONS: "true", GH_STANDIN_LOG: join(ghDir, "log") };
  for (const name of ["PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE", "PULUMI_ACCESS_TOKEN", "E2B_API_KEY", "E2B_API_URL", "E2B_SANDBOX_URL", "E2B_DOMAIN"]) delete runnerEnv[name];
  ctx = {
    secrets: { E2B_API_KEY: emulator.apiKey, PULUMI_CONFIG_PASSPHRASE: passphrase },
    vars: { PULUMI_BACKEND_URL: `file://${stateDir}`, E2B_API_URL: emulator.apiUrl, E2B_SANDBOX_URL: emulator.sandboxUrl },
    github: { token: "ghs_standin-token-0b8e2c", repository: "acme/infra" },
  };
}, 300_000);

afterAll(async () => {
  // The main stack's sandbox goes with the emulator, its state with the backend's directory.
  for (const dir of checkouts) rmSync(dir, { recursive: true, force: true });
  await emulator?.close();
  for (const dir of [stateDir, ghDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

function prEvent(action: string): GithubEvent {
  return { name: "pull_request", action, branch: "main", payload: { number: PR, action, pull_request: { number: PR, base: { ref: "main" } } } };
}

function pushToMain(): GithubEvent {
  return { name: "push", branch: "main", payload: { ref: "refs/heads/main" } };
}

/** Runs the workflows `event` triggers (only `expected`), in a fresh checkout; a failed step fails the test unless `mayFail`. */
async function runEvent(event: GithubEvent, expected: string, opts: { secrets?: Contexts["secrets"]; mayFail?: boolean } = {}): Promise<StepResult[]> {
  const checkout = join(ROOT, "test", "e2e", "fixtures", `gitops-${checkouts.length}.tmp`);
  checkouts.push(checkout);
  cpSync(EXAMPLE, checkout, { recursive: true, filter: (src) => !/Pulumi\.[^/]+\.yaml$|preview\.(json|md)$/.test(src) || src.endsWith("/Pulumi.yaml") });
  const workflows = workflowsFor(checkout, event);
  expect(workflows.map((w) => w.file)).toEqual([expected]);
  const wf = workflows[0]!;
  const results = await runJob(wf, {
    repoDir: checkout,
    event,
    ctx: { ...ctx, secrets: opts.secrets ?? ctx.secrets },
    runnerEnv,
    provided: {
      "actions/checkout": () => true,
      "actions/setup-node": () => true,
      // Installing the CLI only: a `command` would run Pulumi inside the action, out of this test's reach.
      "pulumi/actions": (step) => step.with?.command === undefined,
    },
  });
  for (const r of results) printed.push({ where: `the output of ${r.step}`, text: r.output });
  const failed = results.find((r) => r.code !== 0);
  if (failed && !opts.mayFail) throw new Error(`${failed.step} exited ${failed.code}:\n${failed.output}`);
  return results;
}

function sandboxesOf(stack: string) {
  return emulator.state.sandboxes().filter((s) => s.metadata?.stack === stack);
}

/** The backend's stacks, read by hand. */
async function stackNames(): Promise<string[]> {
  const env = { ...runnerEnv, PULUMI_BACKEND_URL: ctx.vars.PULUMI_BACKEND_URL, PULUMI_CONFIG_PASSPHRASE: passphrase };
  const res = await runPulumi(["stack", "ls", "--json"], { cwd: EXAMPLE, env });
  expect(res.code, res.output).toBe(0);
  return (JSON.parse(res.stdout) as { name: string }[]).map((s) => s.name).sort();
}

describe("examples/gitops: the workflows' steps against the emulator", () => {
  test("a self-managed backend without its passphrase secret: ci.sh stops before any Pulumi command, naming the secret", async () => {
    const results = await runEvent(pushToMain(), "pulumi-deploy.yml", { secrets: { E2B_API_KEY: emulator.apiKey }, mayFail: true });
    expect(results.at(-1)?.code).toBe(1);
    expect(results.at(-1)?.output).toContain(`set PULUMI_CONFIG_PASSPHRASE (a CI secret): the backend ${ctx.vars.PULUMI_BACKEND_URL} encrypts secrets with it`);
    expect(await stackNames()).toEqual([]);
  });

  test("a pull request is opened: its stack's plan is posted as a comment, then deployed as its own environment", async () => {
    const results = await runEvent(prEvent("opened"), "pulumi-preview.yml");
    expect(results.map((r) => r.step.replace(/^.*step \d+ /, ""))).toEqual(["(pulumi preview)", "(post the plan on the pull request)", "(pulumi up (the pull request's environment))"]);
    const log = readFileSync(join(ghDir, "log"), "utf8");
    expect(log).toBe(`pr comment ${PR} --body-file preview.md --edit-last --create-if-none\ntoken:set repo:acme/infra\n`);
    const comment = readFileSync(join(ghDir, "log.body"), "utf8");
    printed.push({ where: "the pull request's comment", text: comment });
    expect(comment).toContain(`### \`pulumi preview\` of stack \`pr-${PR}\``);
    expect(comment).toContain("2 to create, 0 to update, 0 to replace, 0 to delete, 0 unchanged.");
    expect(comment).toContain("| create | app | pulumi-nodejs:dynamic/sandbox:Sandbox |  |");
    expect(sandboxesOf(`pr-${PR}`)).toHaveLength(1);
    expect(await stackNames()).toEqual([`pr-${PR}`]);
  });

  test("the merge's push to main deploys the main stack, beside the pull request's environment", async () => {
    await runEvent(pushToMain(), "pulumi-deploy.yml");
    expect(sandboxesOf("main")).toHaveLength(1);
    expect(sandboxesOf(`pr-${PR}`)).toHaveLength(1);
    expect(await stackNames()).toEqual(["main", `pr-${PR}`]);
  });

  test("the pull request closes: its environment is destroyed and its stack removed; main's is untouched", async () => {
    const main = sandboxesOf("main").map((s) => s.sandboxID);
    const results = await runEvent(prEvent("closed"), "pulumi-cleanup.yml");
    expect(results.at(-1)?.output).toContain(`Stack 'pr-${PR}' has been removed!`);
    expect(sandboxesOf(`pr-${PR}`)).toEqual([]);
    expect(sandboxesOf("main").map((s) => s.sandboxID)).toEqual(main);
    expect(await stackNames()).toEqual(["main"]);
    // Closing it again (a re-run of the job) finds no stack and succeeds doing nothing.
    const again = await runEvent(prEvent("closed"), "pulumi-cleanup.yml");
    expect(again.at(-1)?.output).toContain(`stack pr-${PR} does not exist: nothing to destroy`);
  });

  test("the API key stays secret: in no output, comment, config file or state file", () => {
    const places = [...printed, ...filesUnder(stateDir, "the state backend's file"), ...checkouts.flatMap((dir) => filesUnder(dir, "the checkout's file"))];
    const leaks = findLeaks([{ value: emulator.apiKey, label: "the E2B_API_KEY secret" }, { value: passphrase, label: "the passphrase" }], places);
    expect(leaks, describeLeaks(leaks)).toEqual([]);
    // The key reached the stacks as secret config, not only through the env.
    const mainConfig = checkouts.map((dir) => join(dir, "Pulumi.main.yaml")).filter((file) => existsSync(file));
    expect(mainConfig).toHaveLength(1);
    expect(readFileSync(mainConfig[0]!, "utf8")).toMatch(/sandbox:apiKey:\n\s+secure: /);
  });
});
