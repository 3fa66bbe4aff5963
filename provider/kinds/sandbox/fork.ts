/**
 * A Sandbox made by forking a running one (`forkFrom`): POST /sandboxes/{forkFrom}/fork, one fork
 * (docs/service.md#sandbox-fork). The fork takes its parent's template, metadata, environment, network
 * and volume mounts; the call sets only its timeout, so `check` refuses the inputs it cannot set
 * (./spec.ts) and the egress rules are set after it, with PUT .../network.
 *
 * A fork cannot carry a marker of its own (./adoption.ts): it inherits its parent's metadata, and the
 * service has no call that changes a sandbox's metadata. So no fork made by an interrupted run is
 * looked for (none could be told apart from its parent's other forks), and a fork whose answer was
 * lost is asked for again; the lost one, if it was made, lives until its timeout.
 */
import type { NetworkUpdate, Sandbox } from "../../../sdk/schemas/sandboxes";
import { platform } from "../../runtime/context";
import { waitingForLimit } from "../../runtime/limit-wait";
import type { Logger } from "../../runtime/log";
import { createOnce } from "../../runtime/outcome";

/**
 * Forks `parent` into a sandbox alive `timeout` seconds (left out: the service's default), then sets
 * its egress rules when `network` is given (the parent's otherwise stay, as the service copies them).
 */
export async function forkOf(parent: string, timeout: number | undefined, network: NetworkUpdate | undefined, log: Logger): Promise<Sandbox> {
  const { sandboxes } = platform();
  const fork = () => waitingForLimit("fork", () => sandboxes.fork(parent, timeout === undefined ? {} : { timeout }), log);
  const made = await createOnce(fork, async () => undefined);
  if (network) await sandboxes.setNetwork(made.sandboxID, network);
  return made;
}
