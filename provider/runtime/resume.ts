/**
 * Resumable provisioning. Each command of a provisioning run has a tag derived from the resource's
 * key, its generation, the commands and the command's place, so it is the same when an interrupted
 * `pulumi up` is run again and new when the provisioning changes. The command runs under that tag,
 * wrapped so that the sandbox itself records its exit code when it ends (a file named
 * `<tag>.rc<code>` in RECORDS), whether or not a provider is still attached to it. The next run then:
 *   - skips a command the sandbox recorded as succeeded,
 *   - attaches to one still running under its tag (ProcessClient.wait) instead of starting it again,
 *   - runs the rest.
 * So a command interrupted by a killed `up` runs once, and a sequence goes on where it stopped.
 */
import { createHash } from "node:crypto";
import type { FilesystemClient } from "../../sdk/filesystem";
import { isSandboxError } from "../../sdk/errors";
import type { ProcessClient } from "../../sdk/process";
import type { ProvisionInput } from "../specs/provision";

/** Where the sandbox records each finished command; world-writable and sticky, as commands run as any user. */
export const RECORDS = "/tmp/.pulumi-sandbox-provision";

/** The tag of command `index` of this provisioning run (`runKey`: the resource's key and generation). */
export function commandTag(runKey: string, provision: ProvisionInput, index: number): string {
  const commands = provision.commands.map(({ command, cwd, envs, user, timeoutSeconds }) => ({ command, cwd, envs, user, timeoutSeconds }));
  const hash = createHash("sha256").update(JSON.stringify([runKey, commands, index])).digest("hex").slice(0, 24);
  return `pulumi-provision-${hash}`;
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
