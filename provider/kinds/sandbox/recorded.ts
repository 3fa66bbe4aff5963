/**
 * A Sandbox's create once the service has answered it: the sandbox exists from then on, and a later
 * step that fails (the clean-up of a repeated create, a stale sandbox's removal, a fork's egress rules,
 * provisioning that could not run, the claim, the pause, the read) records it as a partial create
 * (../../runtime/partial.ts) rather than leaving it to a marker. Left unrecorded, a claimed one was
 * passed over by the re-run, which made a second sandbox (./claim.ts).
 */
import type { Sandbox } from "../../../sdk/schemas/sandboxes";
import { platform } from "../../runtime/context";
import type { InputsOf } from "../../runtime/handlers";
import { PartialCreateError, recordedOnFailure } from "../../runtime/partial";
import { urlsOf } from "./ports";

type Inputs = InputsOf<"Sandbox">;

/**
 * What a create's own answer tells of the sandbox `made`, running as it was made: what only a read
 * reports (startedAt, endAt, cpuCount, memoryMB, diskSizeMB) is left out (`CreateOptions.fromAnswer`).
 */
export function fromAnswer(made: Sandbox, ports: readonly number[] | undefined) {
  return { sandboxID: made.sandboxID, envdVersion: made.envdVersion, state: "running" as const, alias: made.alias, urls: urlsOf(made.sandboxID, ports, made.domain) };
}

/** The sandbox's tokens as its create's answer gives them. */
export function tokensOfMade(made: Sandbox) {
  return { envdAccessToken: made.envdAccessToken ?? null, trafficAccessToken: made.trafficAccessToken ?? null };
}

/**
 * A running sandbox is claimed (./claim.ts) before it is recorded, as a finished create's is: a step
 * that failed may have come before the claim. Tried once; a paused one is not resumed for it.
 */
async function claimedIfRunning(inputs: Inputs, made: Sandbox): Promise<void> {
  if (!inputs.__nonce || (await platform().sandboxes.get(made.sandboxID)).state !== "running") return;
  const { claim } = await import("./claim.js");
  await claim(made.sandboxID, made.envdAccessToken, inputs.__nonce);
}

/**
 * Runs `step` of the create that made (or adopted) `made`; its failure records the sandbox as made,
 * running, with its provisioning still to run: the next `up`'s update runs it (the commands that
 * finished are not run again: ../../runtime/resume.ts runNumber) and then pauses it if asked.
 */
export async function afterMade<T>(inputs: Inputs, made: Sandbox, step: () => Promise<T>): Promise<T> {
  const properties = () => ({ ...inputs, ...fromAnswer(made, inputs.ports), ...tokensOfMade(made), provisioned: false, provisionResults: [], __provisionRun: 0 });
  const resource = { kind: "Sandbox", id: made.sandboxID, properties, provider: inputs.__provider };
  return recordedOnFailure(resource, () => step().catch(async (err: unknown) => {
    if (!(err instanceof PartialCreateError)) await claimedIfRunning(inputs, made).catch(() => undefined);
    throw err;
  }));
}
