/**
 * Resumable provisioning. Each command of a provisioning run has a tag derived from the run's key
 * (the resource's key and generation, and the run's number: see {@link runNumber}), the commands and
 * the command's place, so it is the same when an interrupted `pulumi up` is run again and new for
 * every other run. The command runs under that tag, wrapped so that the sandbox itself records its
 * exit code when it ends (a file named `<tag>.rc<code>` in RECORDS), whether or not a provider is
 * still attached to it. The next run of the same run key then:
 *   - skips a command the sandbox recorded as succeeded,
 *   - attaches to one still running under its tag (ProcessClient.wait) instead of starting it again,
 *   - runs the rest.
 * So a command interrupted by a killed `up` runs once, and a sequence goes on where it stopped; and
 * a finished run is never taken for an interrupted one, even when later commands are the same again.
 */
import { createHash } from "node:crypto";
import type { FilesystemClient } from "../../sdk/in-sandbox/filesystem";
import { isSandboxError } from "../../sdk/errors";
import type { ProcessClient } from "../../sdk/in-sandbox/process";
import { sameValue } from "../spec";
import type { ProvisionInput } from "../kinds/sandbox/provision";

/** Where the sandbox records each finished command; world-writable and sticky, as commands run as any user. */
export const RECORDS = "/tmp/.pulumi-sandbox-provision";

/** What of the commands a run executes: what their tags hash, and what tells one run's commands from another's. */
function executed(provision: ProvisionInput | undefined) {
  return (provision?.commands ?? []).map(({ command, cwd, envs, user, timeoutSeconds }) => ({ command, cwd, envs, user, timeoutSeconds }));
}

/** The tag of command `index` of this provisioning run (`runKey`: see {@link runKey}). */
export function commandTag(runKey: string, provision: ProvisionInput, index: number): string {
  const hash = createHash("sha256").update(JSON.stringify([runKey, executed(provision), index])).digest("hex").slice(0, 24);
  return `pulumi-provision-${hash}`;
}

/**
 * The key of a provisioning run: the resource's marker, and the run's number past the first. Run 0
 * (a create's) keys as every run did before runs were numbered, so a sandbox whose provisioning an
 * older version left unfinished is still resumed.
 */
export function runKey(marker: string, run: number): string {
  return run === 0 ? marker : `${marker}/run${run}`;
}

/** What state keeps of the last provisioning run: its number (none before runs were numbered: 0), whether it finished, its commands. */
export interface LastRun {
  provision?: ProvisionInput | undefined;
  provisioned?: boolean | undefined;
  __provisionRun?: number | undefined;
}

/**
 * The number of the provisioning run an update makes. The engine hands an update the state the last
 * finished `up` wrote, so a re-run of a killed `up` computes the same number as the killed run, and
 * resumes it. A run that ended, ended with a new state: the next run gets the next number, and its
 * tags are new even when its commands are those of a run before (A, then B, then A again runs A).
 * One exception: a run that stopped at a failed command (state says `provisioned: false`), run again
 * with the same commands, keeps its number, so the commands that succeeded are not run twice.
 */
export function runNumber(last: LastRun, next: { provision?: ProvisionInput | undefined }): number {
  const number = typeof last.__provisionRun === "number" ? last.__provisionRun : 0;
  const unfinished = last.provisioned === false && sameValue(executed(last.provision), executed(next.provision));
  return unfinished ? number : number + 1;
}

/**
 * The script the sandbox runs for a command: the command itself (read from the environment and
 * unset before it runs, so its own children do not see it), then the record of its exit code. The
 * records directory is made by the first command only: `mkdir` is a program, started once, not per command.
 */
export const WRAPPER =
  'c="$PULUMI_PROVISION_COMMAND"; t="$PULUMI_PROVISION_TAG"; unset PULUMI_PROVISION_COMMAND PULUMI_PROVISION_TAG; ' +
  `( eval "$c" ); rc=$?; [ -d ${RECORDS} ] || mkdir -p -m 1777 ${RECORDS} 2>/dev/null; : > "${RECORDS}/$t.rc$rc" 2>/dev/null; exit $rc`;

export function wrapperEnv(command: string, tag: string): Record<string, string> {
  return { PULUMI_PROVISION_COMMAND: command, PULUMI_PROVISION_TAG: tag };
}

/** What an earlier run left: the tags the sandbox recorded as succeeded, and those still running. */
export interface EarlierRuns {
  succeeded: Set<string>;
  running: Set<string>;
}

/** What a sandbox made by the same call has: nothing. */
export const NO_EARLIER_RUNS: Readonly<EarlierRuns> = { succeeded: new Set(), running: new Set() };

export async function earlierRuns(files: FilesystemClient, processes: ProcessClient): Promise<EarlierRuns> {
  const [records, listed] = await Promise.all([
    files.listDir(RECORDS).catch((err: unknown) => {
      if (isSandboxError(err) && err.code === "not_found") return [];
      throw err;
    }),
    processes.list(),
  ]);
  const succeeded = new Set(records.filter((e) => e.name.endsWith(".rc0")).map((e) => e.name.slice(0, -".rc0".length)));
  const running = new Set(listed.map((p) => p.tag).filter((t): t is string => !!t));
  return { succeeded, running };
}
