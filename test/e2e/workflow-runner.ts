/**
 * Runs a GitHub Actions workflow's steps on this machine, as a runner would for one event: the
 * workflows a repository holds are read from its `.github/workflows/`, those whose `on:` matches the
 * event are picked, `${{ ... }}` is evaluated from the contexts a test gives (secrets, vars, the event),
 * and each `run:` step runs with bash in its working directory with the workflow's, job's and step's
 * env. So a test of examples/gitops runs the commands the workflow file says, not a copy of them.
 *
 * What a hosted runner would download is here already: a `uses:` step is accepted only when it is one
 * whose effect the caller provided (the checkout, Node, the Pulumi CLI), and a dependency install is
 * left to the repository's node_modules. Anything else fails, naming the step.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
// @ts-expect-error: js-yaml (a devDependency, as for scripts/gen-contract.mjs) ships no types
import { load } from "js-yaml";
import { CLI_TIMEOUT_MS } from "./harness";

export interface GithubEvent {
  /** `pull_request` or `push`. */
  name: string;
  /** The pull request's activity (`opened`, `closed`...). */
  action?: string;
  /** The branch a push went to, or a pull request's base branch. */
  branch: string;
  /** `github.event` as the workflow reads it. */
  payload: Record<string, unknown>;
}

export interface Contexts {
  secrets: Record<string, string>;
  vars: Record<string, string>;
  /** `github.*` besides `github.event` and `github.event_name` (`token`, `repository`). */
  github: Record<string, string>;
}

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
  if?: string;
  "working-directory"?: string;
}

interface Job {
  env?: Record<string, string>;
  defaults?: { run?: { "working-directory"?: string } };
  steps: Step[];
}

export interface Workflow {
  file: string;
  on: Record<string, { types?: string[]; branches?: string[] } | null>;
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}

export interface StepResult {
  step: string;
  code: number;
  output: string;
}

// A pull_request workflow with no `types` runs for these (GitHub's documented default).
const DEFAULT_PR_TYPES = ["opened", "synchronize", "reopened"];

/** The workflows of `repoDir` that `event` triggers, by file name. */
export function workflowsFor(repoDir: string, event: GithubEvent): Workflow[] {
  const dir = join(repoDir, ".github", "workflows");
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((file) => ({ file, ...(load(readFileSync(join(dir, file), "utf8")) as Omit<Workflow, "file">) }))
    .filter((wf) => triggers(wf, event));
}

function triggers(wf: Workflow, event: GithubEvent): boolean {
  if (!(event.name in wf.on)) return false;
  const filter = wf.on[event.name] ?? {};
  const types = filter.types ?? (event.name === "pull_request" ? DEFAULT_PR_TYPES : undefined);
  if (types && !types.includes(event.action ?? "")) return false;
  return !filter.branches || filter.branches.includes(event.branch);
}

/** `${{ ... }}` in `text`, evaluated: context paths, and the status functions of a run whose steps so far passed. */
export function expand(text: string, event: GithubEvent, ctx: Contexts, env: Record<string, string>): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expr: string) => String(evaluate(expr, event, ctx, env)));
}

function evaluate(expr: string, event: GithubEvent, ctx: Contexts, env: Record<string, string>): string | boolean {
  // Every earlier step passed (runJob stops at the first failure), and nothing is cancelled.
  if (["always()", "success()", "!cancelled()"].includes(expr)) return true;
  const [root, ...path] = expr.split(".");
  const roots: Record<string, unknown> = { secrets: ctx.secrets, vars: ctx.vars, env, github: { ...ctx.github, event_name: event.name, event: event.payload } };
  if (!root || !(root in roots) || !/^[\w.-]+$/.test(expr)) throw new Error(`workflow expression \`${expr}\`: not one this runner evaluates`);
  let value: unknown = roots[root];
  for (const key of path) value = (value as Record<string, unknown> | undefined)?.[key];
  if (root === "github" && value === undefined) throw new Error(`workflow expression \`${expr}\`: the test's event has no such field`);
  // An unset secret or variable is the empty string, as on GitHub.
  return value === undefined ? "" : String(value);
}

export interface RunOptions {
  /** The checkout: the repository's files, fresh for this job. */
  repoDir: string;
  event: GithubEvent;
  ctx: Contexts;
  /** The runner's own env (PATH with node and pulumi, HOME...), under the workflow's. */
  runnerEnv: Record<string, string | undefined>;
  /** `uses:` steps whose effect the caller provided, by action name (`pulumi/actions`): each says whether it accepts the step. */
  provided: Record<string, (step: Step) => boolean>;
}

/** Runs the one job of `wf` step by step; stops at the first step that fails, as a runner does. */
export async function runJob(wf: Workflow, opts: RunOptions): Promise<StepResult[]> {
  const jobs = Object.entries(wf.jobs);
  if (jobs.length !== 1) throw new Error(`${wf.file}: ${jobs.length} jobs; this runner runs workflows of one job`);
  const [jobName, job] = jobs[0]!;
  const env = expandAll({ ...wf.env }, opts, {});
  Object.assign(env, expandAll({ ...job.env }, opts, env));
  const results: StepResult[] = [];
  for (const [i, step] of job.steps.entries()) {
    const label = `${wf.file} ${jobName} step ${i + 1} (${step.name ?? step.uses ?? step.run})`;
    // `if:` may be written bare (`always()`) or wrapped (`${{ always() }}`).
    const condition = step.if === undefined ? undefined : step.if.includes("${{") ? step.if : `\${{ ${step.if} }}`;
    if (condition !== undefined && expand(condition, opts.event, opts.ctx, env) !== "true") throw new Error(`${label}: if \`${step.if}\` is not true on a run whose steps passed`);
    if (step.uses !== undefined) {
      const action = step.uses.split("@")[0] ?? "";
      if (!opts.provided[action]?.(step)) throw new Error(`${label}: \`uses: ${step.uses}\` is no action this test provides`);
      continue;
    }
    if (step.run === undefined) throw new Error(`${label}: neither run nor uses`);
    // Dependencies: the copy resolves them from the repository's node_modules, as the examples do.
    if (/^npm (ci|install)\s*$/.test(step.run.trim())) continue;
    const stepEnv = { ...env, ...expandAll({ ...step.env }, opts, env) };
    const dir = expand(step["working-directory"] ?? job.defaults?.run?.["working-directory"] ?? ".", opts.event, opts.ctx, env);
    const res = await bash(step.run, join(opts.repoDir, dir), { ...opts.runnerEnv, ...stepEnv });
    results.push({ step: label, ...res });
    if (res.code !== 0) break;
  }
  return results;
}

function expandAll(vars: Record<string, string>, opts: RunOptions, env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, expand(String(v), opts.event, opts.ctx, env)]));
}

/** A `run:` step as GitHub's ubuntu runners run it: `bash --noprofile --norc -eo pipefail`. */
function bash(script: string, cwd: string, env: Record<string, string | undefined>): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", script], { cwd, env, stdio: ["ignore", "pipe", "pipe"], timeout: CLI_TIMEOUT_MS, killSignal: "SIGKILL" });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}
