/**
 * The e2e harness: the real Pulumi CLI (scripts/ensure-pulumi.mjs: it fails, never skips, when no CLI
 * can be had) running an example in place against an emulator started in this process, so tests can
 * read the emulator's inventory and call log. Every CLI output is kept for the secret scan that
 * `close()` runs (./secrets.ts): it fails the suite when a secret value is found in plaintext.
 */
import { mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { createEmulator, type Emulator, type EmulatorOptions } from "../../emulator";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { ensurePulumi } from "../../scripts/ensure-pulumi.mjs";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { pulumiEnv, runPulumi } from "../../scripts/pulumi-run.mjs";
import { initE2eStack } from "./stack-init";
import { assertScannable, describeLeaks, filesUnder, findLeaks, pathsHolding, type Place, type SecretValue } from "./secrets";

export const ROOT = join(__dirname, "..", "..");

/** The longest any one CLI command of the suite may take (a fleet `up` under faults takes about a minute). */
export const CLI_TIMEOUT_MS = 300_000;

export interface CliResult {
  code: number;
  output: string;
  stdout: string;
}

export interface RunningCli {
  /** What the CLI printed so far. */
  output(): string;
  /** Whether it has ended. */
  ended(): boolean;
  /** Its result, once it ends (whatever its exit code, as `pulumi`). */
  result: Promise<CliResult>;
}

export interface E2eStack {
  emulator: Emulator;
  /** The stack's current name (see `renameStack`). */
  readonly stack: string;
  /** Runs `pulumi <args> --stack <stack>` in the example's folder. */
  pulumi(...args: string[]): Promise<CliResult>;
  /** Like `pulumi`, but fails the test with the CLI's output when the exit code is not 0. */
  ok(...args: string[]): Promise<CliResult>;
  /**
   * Starts `pulumi <args>` as `pulumi` runs it (its output kept for the scan), and shows what it printed
   * so far while it runs: for a test that acts at a line of it (releases a held build once `up` waits for it).
   */
  running(...args: string[]): RunningCli;
  /** Sets several plain config values of the project in one CLI start (`config set-all --plaintext k=v ...`). */
  configure(values: Record<string, string>): Promise<CliResult>;
  /** Stack outputs; `showSecrets` reads secret ones in plaintext, kept out of the scanned transcript (see `peek`). */
  outputs(opts?: { showSecrets?: boolean }): Promise<Record<string, unknown>>;
  /** `pulumi stack export`; `showSecrets` as for `outputs`. */
  exported(opts?: { showSecrets?: boolean }): Promise<string>;
  /** `pulumi stack rename <name>`: later commands address the stack by its new name. */
  renameStack(name: string): Promise<void>;
  /**
   * Later commands run in `dir` (a copy of the program under another project name, for a project
   * rename); the stack's config file moves along, as a user would carry it.
   */
  moveTo(dir: string): void;
  /**
   * Runs a command whose output is kept out of the transcript the secret scan reads: for a test that
   * must learn a secret's value (`stack output x --show-secrets`) to then look for it everywhere else.
   */
  peek(...args: string[]): Promise<CliResult>;
  /** Everything the CLI printed so far, for the secret scan. */
  transcript(): string;
  /**
   * Registers a value `close()` must not find in plaintext anywhere (besides the emulator's API key
   * and access token, and the envdAccessToken of every secure sandbox seen, which are registered
   * automatically). Returns the value, so a test can write `const token = s.secret("...")`.
   */
  secret(value: string, label?: string): string;
  /** What `close()` will scan for, by label (never the values): lets a test see a token was picked up. */
  secretLabels(): string[];
  /**
   * Scans `pulumi stack export` (without `--show-secrets`) for every registered secret now, and fails
   * naming each leak and the state field that holds it (`after`: the step just taken, for the report).
   * For a kind's e2e paths (first up, a failed change, an interrupted run, refresh): `close()` scans the
   * state once, at the end, and a leak a later step overwrites would pass it by.
   */
  scanState(after: string): Promise<void>;
  /** The file backend's files `close()` scans (checkpoints, their history and backups), by path under the backend's dir. */
  backendFiles(): string[];
  /**
   * Scans the exported state, the backend's files, the stack's config file and every CLI output for
   * the registered secrets; then removes the stack and stops the emulator. Throws, after cleaning
   * up, naming each secret that leaked and where.
   */
  close(): Promise<void>;
}

/**
 * `project`: an example's name (a folder of examples/) or an absolute path to a Pulumi project (test
 * fixtures). The project must resolve `pulumi-sandbox` and `@pulumi/pulumi` from the repository's
 * node_modules, so fixtures live inside the repository. Each stack has a backend of its own; it has an
 * emulator of its own too, unless `shared` gives one (several stacks of one team, one service), which
 * `close()` then leaves running for its owner to close.
 */
export async function startStack(project: string, stack: string, emulatorOptions: EmulatorOptions = {}, shared?: { emulator: Emulator }): Promise<E2eStack> {
  const binDir: string = await ensurePulumi();
  const emulator = shared?.emulator ?? (await createEmulator({ buildDelayMs: 300, ...emulatorOptions }));
  const stateDir = mkdtempSync(join(tmpdir(), "pulumi-sandbox-e2e-"));
  let cwd = isAbsolute(project) ? project : join(ROOT, "examples", project);
  const env = pulumiEnv({ binDir, stateDir, extra: { PULUMI_CONFIG_PASSPHRASE: "e2e-passphrase" } });
  const printed: Place[] = [];
  const secrets = new Map<string, string>([[emulator.apiKey, "the emulator's apiKey"], [emulator.accessToken, "the emulator's accessToken"]]);
  // Sandboxes come and go within a run: their tokens are collected after every command, while they exist.
  const collectSandboxTokens = () => {
    for (const sb of emulator.state.sandboxes()) {
      const token = sb.envdAccessToken;
      if (typeof token === "string" && !secrets.has(token)) secrets.set(token, `the envdAccessToken of sandbox ${sb.sandboxID}`);
    }
  };
  let registered = 0;
  let current = stack;
  const run = (args: string[], onOutput?: (text: string) => void): Promise<CliResult> => {
    const res: Promise<CliResult> = runPulumi([...args, "--stack", current], { cwd, env, timeoutMs: CLI_TIMEOUT_MS, onOutput });
    // A TypeScript program is type-checked (ts-node) at its first run of the stack, and after that only
    // transpiled: its code does not change within a test file, and the check is most of a run's time
    // (a fleet preview took 57-82 s checked, 20-32 s transpiled, on a loaded 2-core machine).
    if (args[0] === "preview" || args[0] === "up") env.PULUMI_NODEJS_TRANSPILE_ONLY = "true";
    return res;
  };
  const pulumi = async (...args: string[]): Promise<CliResult> => kept(args, await run(args));
  const kept = (args: string[], res: CliResult): CliResult => {
    printed.push({ where: `the output of \`pulumi ${args.join(" ")}\``, text: res.output });
    collectSandboxTokens();
    return res;
  };
  const ok = async (...args: string[]) => {
    const res = await pulumi(...args);
    if (res.code !== 0) throw new Error(`pulumi ${args.join(" ")} exited ${res.code}:\n${res.output}`);
    return res;
  };
  const peek = async (...args: string[]): Promise<CliResult> => {
    const res = await run(args);
    if (res.code !== 0) throw new Error(`pulumi ${args.join(" ")} exited ${res.code}`);
    return res;
  };
  // A place's name may quote a command line that carried a secret: the report must not repeat it.
  const scrub = (where: string) => [...secrets.keys()].reduce((text, value) => text.split(value).join("[secret]"), where);
  /** What of the registered secrets `places` show, as the report's text ("" when nothing leaked). */
  const leaksIn = (places: Place[]): string => {
    collectSandboxTokens();
    const found = findLeaks([...secrets].map(([value, label]): SecretValue => ({ value, label })), places.map((p) => ({ ...p, where: scrub(p.where) })));
    return found.length > 0 ? `stack ${current}: ${describeLeaks(found)}` : "";
  };
  const exportNow = async (): Promise<string> => {
    const exported = await run(["stack", "export"]);
    if (exported.code !== 0) throw new Error(`pulumi stack export exited ${exported.code}:\n${exported.output}`);
    return exported.stdout;
  };
  await initE2eStack(cwd, env, stack, emulator);
  return {
    emulator,
    get stack() {
      return current;
    },
    pulumi,
    ok,
    running: (...args) => {
      let soFar = "";
      let ended = false;
      const result = run(args, (text) => (soFar += text)).then((res) => ((ended = true), kept(args, res)));
      return { output: () => soFar, ended: () => ended, result };
    },
    configure: (values) => ok("config", "set-all", ...Object.entries(values).flatMap(([k, v]) => ["--plaintext", `${k}=${v}`])),
    moveTo: (dir) => {
      renameSync(join(cwd, `Pulumi.${current}.yaml`), join(dir, `Pulumi.${current}.yaml`));
      cwd = dir;
    },
    renameStack: async (name) => {
      await ok("stack", "rename", name);
      current = name;
    },
    peek,
    outputs: async (opts) => JSON.parse((await (opts?.showSecrets ? peek : ok)("stack", "output", "--json", ...(opts?.showSecrets ? ["--show-secrets"] : []))).stdout),
    exported: async (opts) => (await (opts?.showSecrets ? peek : ok)("stack", "export", ...(opts?.showSecrets ? ["--show-secrets"] : []))).stdout,
    transcript: () => printed.map((p) => p.text).join("\n"),
    secret: (value, label) => {
      assertScannable(value);
      secrets.set(value, label ?? `the test's secret #${++registered}`);
      return value;
    },
    secretLabels: () => [...secrets.values()],
    scanState: async (after) => {
      const exported = await exportNow();
      const leaks = leaksIn([{ where: `the exported state after ${after}`, text: exported }]);
      if (!leaks) return;
      const fields = [...secrets].flatMap(([value, label]) => pathsHolding(exported, value).map((path) => `  - ${label}: ${path}`));
      throw new Error(`${leaks}\nin the state's fields:\n${fields.join("\n")}`);
    },
    backendFiles: () => filesUnder(stateDir, "").map((p) => p.where.trim()),
    close: async () => {
      let leaks = "";
      try {
        const exported = await exportNow().catch((err: Error) => Promise.reject(new Error(`close: ${err.message}`)));
        leaks = leaksIn([
          ...printed,
          { where: "the exported state (pulumi stack export)", text: exported },
          ...filesUnder(stateDir, "the state backend's file"),
          { where: `the stack's config file Pulumi.${current}.yaml`, text: readConfigFile(cwd, current) },
        ]);
      } finally {
        // What `stack rm --force` would remove, without a CLI start: the backend's dir and the stack's config file.
        rmSync(join(cwd, `Pulumi.${current}.yaml`), { force: true });
        if (!shared) await emulator.close();
        rmSync(stateDir, { recursive: true, force: true });
      }
      if (leaks) throw new Error(leaks);
    },
  };
}

function readConfigFile(cwd: string, stack: string): string {
  try {
    return readFileSync(join(cwd, `Pulumi.${stack}.yaml`), "utf8");
  } catch {
    return "";
  }
}

/** Calls the emulator received since `seq`, as `METHOD /path` lines (query strings dropped). */
export function callsSince(emulator: Emulator, seq: number): string[] {
  return emulator.calls(seq).map((c) => `${c.method} ${c.path.split("?")[0]}`);
}

export function lastSeq(emulator: Emulator): number {
  return emulator.calls().at(-1)?.seq ?? 0;
}

/** Resources the stack made: everything but the built-in `base` template. */
export function inventoryOfStack(emulator: Emulator) {
  const inv = emulator.state.inventory();
  return { sandboxes: inv.sandboxes, volumes: inv.volumes, templates: inv.templates.filter((t) => !t.aliases.includes("base")) };
}
