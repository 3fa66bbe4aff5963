/**
 * A Sandbox made by forking a running one (`forkFrom`): POST /sandboxes/{forkFrom}/fork, one fork
 * (docs/service.md#sandbox-fork). The fork takes its parent's template, metadata, environment, network
 * and volume mounts; the call sets only its timeout, so `check` refuses the inputs it cannot set
 * (./spec.ts) and the egress rules are set after it, with PUT .../network.
 *
 * A fork cannot carry a marker of its own (./adoption.ts): it inherits its parent's metadata, and the
 * service has no call that changes a sandbox's metadata. What it does inherit is its parent's files.
 * So before the call the create leaves a mark in the parent (FORKING/<its nonce>-<generation>) and
 * takes it away after: the fork it made carries that mark, and no other fork of the parent does (the
 * forks of one parent are made one at a time here). A fork whose answer was lost is then found among
 * the sandboxes with the parent's marker by that mark, and taken as the one made. What an interrupted
 * run forked is still not looked for: that run's nonce is gone with it. The fork keeps its mark: it is
 * what tells it from its parent when the parent's replacement finds both by the marker (`isFork`).
 */
import type { NetworkUpdate, Sandbox } from "../../../sdk/schemas/sandboxes";
import { isSandboxError } from "../../../sdk/errors";
import { platform } from "../../runtime/context";
import { waitingForLimit } from "../../runtime/limit-wait";
import type { Logger } from "../../runtime/log";
import { createOnce } from "../../runtime/outcome";
import { MARKER_KEY } from "./spec";
import { inSandbox } from "./in-sandbox";

/** Where a parent holds the marks of the forks being made of it. */
export const FORKING = "/tmp/.pulumi-sandbox-forking";

/** The forks of one parent are made one at a time in this process: each fork carries only its own mark. */
const forking = new Map<string, Promise<unknown>>();

function oneAtATime<T>(parent: string, run: () => Promise<T>): Promise<T> {
  const before = forking.get(parent) ?? Promise.resolve();
  const mine = before.catch(() => undefined).then(run);
  forking.set(parent, mine);
  void mine.catch(() => undefined).then(() => forking.get(parent) === mine && forking.delete(parent));
  return mine;
}

/** Who asks for the fork: the mark its fork carries (`<nonce>-<generation>`), none for state written before nonces. */
export interface Forker {
  mark?: string | undefined;
}

/**
 * Forks `parent` into a sandbox alive `timeout` seconds (left out: the service's default), then sets
 * its egress rules when `network` is given (the parent's otherwise stay, as the service copies them).
 */
export async function forkOf(parent: string, timeout: number | undefined, network: NetworkUpdate | undefined, log: Logger, forker: Forker = {}): Promise<Sandbox> {
  const { sandboxes } = platform();
  const made = await oneAtATime(parent, async () => {
    // A parent that is not running is refused by the fork call itself, with the service's reason.
    const detail = forker.mark ? await sandboxes.get(parent) : undefined;
    const token = detail?.envdAccessToken ?? null;
    const mark = detail?.state === "running" ? `${FORKING}/${forker.mark}` : undefined;
    if (mark) await inSandbox(parent, (fs) => fs.makeDir(mark), token);
    try {
      const fork = () => waitingForLimit("fork", () => sandboxes.fork(parent, timeout === undefined ? {} : { timeout }), log);
      return await createOnce(fork, async () => (mark ? lostFork(parent, detail?.metadata?.[MARKER_KEY], mark) : undefined));
    } finally {
      if (mark) await inSandbox(parent, (fs) => fs.remove(mark), token).catch(() => undefined);
    }
  });
  if (network) await sandboxes.setNetwork(made.sandboxID, network);
  return made;
}

/**
 * The fork of `parent` that carries `mark`: the one a fork call whose answer was lost made. Its tokens
 * come from a connect, which answers as create does (for a running sandbox it only ever extends its life).
 */
async function lostFork(parent: string, marker: string | undefined, mark: string): Promise<Sandbox | undefined> {
  const { sandboxes } = platform();
  const siblings = marker ? await sandboxes.listAll({ metadata: { [MARKER_KEY]: marker }, state: ["running"] }) : [];
  for (const s of siblings) {
    if (s.sandboxID === parent) continue;
    const carries = await inSandbox(s.sandboxID, (fs) => fs.exists(mark)).catch((err: unknown) => {
      if (isSandboxError(err) && err.code === "not_found") return false; // ended since it was listed
      throw err;
    });
    if (carries) return sandboxes.connect(s.sandboxID, { timeout: 0 });
  }
  return undefined;
}

/**
 * Whether the running sandbox `sandboxID` is a fork: it holds a fork's mark its parent no longer does
 * (`forkOf` takes the mark from the parent once the fork is made). Forks made before marks were kept
 * hold none, and are not told apart so.
 */
export async function isFork(sandboxID: string): Promise<boolean> {
  return inSandbox(sandboxID, async (fs) => (await fs.listDir(FORKING)).length > 0).catch((err: unknown) => {
    if (isSandboxError(err) && err.code === "not_found") return false; // no mark, or ended since it was listed
    throw err;
  });
}
