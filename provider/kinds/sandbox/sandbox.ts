/**
 * Sandbox create/read/update/delete. The map of calls and the replace rules are in ./spec.ts.
 *
 * Every sandbox carries a marker in its metadata, the same on a re-run of an interrupted `up` and
 * different for a replacement, so create first looks for a sandbox with its marker and adopts it: a
 * killed run or a lost answer never leaves a second sandbox (./adoption.ts). It also carries
 * what it was made from, and only a sandbox made from the create's own inputs is adopted.
 */
import type { NetworkUpdate, NewSandbox, Sandbox, SandboxDetail } from "../../../sdk/schemas/sandboxes";
import { changedFields } from "../../diff";
import { getPath, sameValue } from "../../spec";
import type { ProvisionResult } from "./provision";
import { sandboxSpec } from "./spec";
import { platform } from "../../runtime/context";
import { ignoreNotFound, isNotFound, type InputsOf, type ResourceHandlers, type SpecInputs, type StateOf } from "../../runtime/handlers";
import { resourceLogger } from "../../runtime/log";
import { hiddenValues } from "../../runtime/secrets";
import { createOnce } from "../../runtime/outcome";
import { waitingForLimit } from "../../runtime/limit-wait";
import { applyState, applyTimeout } from "./transitions";
import { PartialCreateError } from "../../runtime/partial";
import { runKey, runNumber } from "../../runtime/resume";
import { wireBody, type WireMap } from "../../runtime/wire";
import { fieldDigests } from "../../runtime/made-from";
import { urlsOf } from "./ports";
import { forkOf } from "./fork";
import { afterMade, fromAnswer, tokensOfMade } from "./recorded";
import { findByMarker, INPUTS_KEY, leftAlone, madeEarlier, markerOf, markings, NONCE_KEY, removeRepeats, removeStale, withoutMarkings } from "./adoption";
import { idempotencyKeyOf } from "../identity";
import type { AttemptOutcome } from "../../../sdk/transport/retry";

type Inputs = InputsOf<"Sandbox">;
/** `__provisionRun`: the number of the last provisioning run (../../runtime/resume.ts runNumber), kept in state only. */
type State = StateOf<"Sandbox"> & { __provisionRun?: number };
/** The sandbox's tokens, once known: hidden from its logs like the program's secrets. */
type Tokens = Partial<Pick<State, "envdAccessToken" | "trafficAccessToken">>;

/** The service's default life of a sandbox, in seconds, when `timeoutSeconds` is left out. */
const DEFAULT_TIMEOUT_SECONDS = 15;

/** The sandbox's tokens: hidden from its logs and stored output like what every resource hides. */
const tokensOf = (tokens: Tokens = {}): string[] => [tokens.envdAccessToken, tokens.trafficAccessToken].filter((v): v is string => typeof v === "string");

/**
 * Every secret a sandbox's logs and stored output must not show: what every resource hides (the
 * credentials, each value the program marked secret: ../../runtime/secrets.ts) and the sandbox's tokens.
 * A value the program did not mark secret is shown as it is.
 */
function secretsOf(inputs: Inputs, tokens: Tokens = {}): string[] {
  return [...hiddenValues("Sandbox", inputs), ...tokensOf(tokens)];
}

const logFor = (inputs: Inputs, tokens?: Tokens) => resourceLogger("Sandbox", inputs, () => tokensOf(tokens));

export const NEW_SANDBOX: WireMap<SpecInputs<"Sandbox">, NewSandbox> = {
  templateID: (templateID) => ({ templateID }),
  forkFrom: "not sent: a fork is made by another call, POST /sandboxes/{forkFrom}/fork (./fork.ts)",
  timeoutSeconds: (timeout) => ({ timeout }),
  timeout: "not sent: the deprecated name of timeoutSeconds, which check moves it to",
  autoPause: (autoPause) => ({ autoPause }),
  autoResume: (autoResume) => ({ autoResume }),
  // The service's create names the timeout's action autoPause and its pause's kind autoPauseMemory.
  lifecycle: ({ onTimeout }) => ({ autoPause: onTimeout.action === "pause", ...(onTimeout.mode ? { autoPauseMemory: onTimeout.mode === "full" } : {}) }),
  secure: (secure) => ({ secure }),
  allowInternetAccess: (allow) => ({ allow_internet_access: allow }),
  network: (network) => ({ network }),
  metadata: (metadata) => ({ metadata }),
  envVars: (envVars) => ({ envVars }),
  mcp: (mcp) => ({ mcp }),
  volumeMounts: (volumeMounts) => ({ volumeMounts }),
  provision: "not sent: its commands run inside the sandbox once it exists",
  state: "not sent: a sandbox is made running; paused, it is paused after its provisioning",
  pauseMode: "not sent: it is the body of the pause `state: paused` makes (POST .../pause)",
  ports: "not sent: the service's proxy reaches every port; they only name the URLs reported",
};

/**
 * PUT .../network replaces the egress rules whole, so each rule is sent as it should now be: a rule
 * left out is sent empty, and internet access left out is the default, allowed.
 */
export const NETWORK_UPDATE: WireMap<SpecInputs<"Sandbox">, NetworkUpdate> = {
  templateID: "not sent: fixed at creation",
  forkFrom: "not sent: fixed at creation",
  timeoutSeconds: "not sent: POST .../timeout",
  timeout: "not sent: the deprecated name of timeoutSeconds",
  autoPause: "not sent: fixed at creation",
  autoResume: "not sent: fixed at creation",
  lifecycle: "not sent: fixed at creation",
  secure: "not sent: fixed at creation",
  allowInternetAccess: (allow) => ({ allow_internet_access: allow }),
  network: ({ allowOut, denyOut, dnsServers, rules }) => ({ allowOut: allowOut ?? [], denyOut: denyOut ?? [], ...(dnsServers ? { dnsServers } : {}), ...(rules ? { rules } : {}) }),
  metadata: "not sent: fixed at creation",
  envVars: "not sent: fixed at creation",
  mcp: "not sent: fixed at creation",
  volumeMounts: "not sent: fixed at creation",
  provision: "not sent: run inside the sandbox",
  state: "not sent: POST .../pause or .../connect",
  pauseMode: "not sent: the body of POST .../pause",
  ports: "not sent: they only name the URLs reported",
};

/** A fork's egress rules, when the program gives any (left out, the fork keeps its parent's). */
function egressOf(inputs: Inputs): NetworkUpdate | undefined {
  return inputs.network === undefined && inputs.allowInternetAccess === undefined ? undefined : networkBody(inputs);
}

function networkBody(inputs: Inputs): NetworkUpdate {
  return { allowOut: [], denyOut: [], allow_internet_access: true, ...wireBody(NETWORK_UPDATE, inputs) };
}

/**
 * The digests (../../runtime/made-from.ts) of what a sandbox is made from: each input the create sends
 * but its deadline, which an adopting create sets anew (connect), and `provision.triggers`, whose
 * change asks for a new sandbox. By input name, so that a stale sandbox's message names the input.
 */
export function madeFrom(inputs: Record<string, unknown>): string {
  const sent = Object.keys(NEW_SANDBOX).filter((k) => typeof NEW_SANDBOX[k as keyof typeof NEW_SANDBOX] === "function" && k !== "timeoutSeconds");
  return fieldDigests("sandbox", { ...Object.fromEntries(sent.map((k) => [k, inputs[k]])), "provision.triggers": getPath(inputs, "provision.triggers") });
}

/**
 * The create's body. The deadline is always sent: the service's default differs by route (15 s on the
 * deprecated POST /sandboxes, 300 s on POST /v2/sandboxes), and this provider's stays 15 s.
 */
function requestBody(inputs: Inputs, templateID: string, made: string): NewSandbox {
  const metadata = { ...inputs.metadata, ...markings(inputs), [INPUTS_KEY]: made, ...(inputs.__nonce ? { [NONCE_KEY]: inputs.__nonce } : {}) };
  return { ...wireBody(NEW_SANDBOX, inputs), templateID, timeout: inputs.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS, metadata };
}

/** What the service reports of the sandbox, and the URLs of the `ports` it serves. */
function fromDetail(detail: SandboxDetail, ports: readonly number[] | undefined) {
  const { sandboxID, envdVersion, state, startedAt, endAt, cpuCount, memoryMB, diskSizeMB } = detail;
  const urls = urlsOf(sandboxID, ports, detail.domain);
  return { sandboxID, envdVersion, state, startedAt, endAt, cpuCount, memoryMB, diskSizeMB, alias: detail.alias ?? undefined, urls };
}

interface Provisioned {
  provisioned: boolean;
  provisionResults: ProvisionResult[];
  __provisionRun: number;
  /** Why it stopped, when a command failed. */
  failure?: string | undefined;
}

/**
 * Runs `provision` (none: nothing to do) in the sandbox `id`, as provisioning run number `run` of the
 * resource (0 for a create's). `fresh`: the sandbox was made by this same create (or found again after
 * its answer was lost), so no earlier run can have left records in it and the look for them is skipped.
 */
async function provisionIn(id: string, inputs: Inputs, tokens: Tokens, run: number, fresh = false): Promise<Provisioned> {
  const { provision } = inputs;
  if (!provision) return { provisioned: true, provisionResults: [], __provisionRun: run };
  // Loaded here: the in-sandbox clients (Connect, protobuf) cost a host ~45 ms to load, and a sandbox
  // without commands never uses them.
  const { runProvision } = await import("../../runtime/provision.js");
  const target = { sandboxID: id, envdAccessToken: tokens.envdAccessToken };
  const outcome = await runProvision(target, provision, runKey(markerOf(inputs), run), logFor(inputs, tokens), secretsOf(inputs, tokens), { fresh });
  return { provisioned: outcome.ok, provisionResults: outcome.results, __provisionRun: run, failure: outcome.failure };
}

/**
 * The sandbox a create starts from: one an interrupted run made from the same inputs (adopted), else a
 * new one from the template. A stale one, made from other inputs, is deleted first. One that is not
 * provably an interrupted run's is left as it is, and said so.
 */
async function fromTemplate(inputs: Inputs, templateID: string, timeout: number): Promise<{ made: Sandbox; adopted: boolean }> {
  const { sandboxes } = platform();
  const digests = madeFrom(inputs);
  const { adopted, stale, doubtful } = await madeEarlier(inputs, digests, timeout);
  for (const found of doubtful) logFor(inputs)(await leftAlone(found, inputs.__resource));
  if (adopted) {
    logFor(inputs)(`adopting sandbox ${adopted.sandboxID} made by an interrupted run`);
    await afterMade(inputs, adopted, () => removeStale(stale, logFor(inputs)));
    return { made: adopted, adopted: true };
  }
  await removeStale(stale, logFor(inputs));
  // At the team's limit the create waits for a slot (../../runtime/limit-wait.ts); a refused create made nothing, so no look-up is needed.
  // The idempotency key (../identity.ts) lets the sdk repeat a create whose answer was lost: the service answers with the first one's sandbox.
  const key = idempotencyKeyOf(inputs, `${digests}#${timeout}`);
  let repeated = false;
  const call = { onRetry: (o: AttemptOutcome) => { repeated ||= o.kind !== "not_sent" && !(o.kind === "status" && o.status === 429); } };
  const create = () => waitingForLimit("create", () => sandboxes.create(requestBody(inputs, templateID, digests), call, key ? { idempotencyKey: key } : {}), logFor(inputs));
  const made = await createOnce(create, () => findByMarker(inputs, digests, timeout));
  if (repeated && key) await afterMade(inputs, made, () => removeRepeats(inputs, made.sandboxID));
  return { made, adopted: false };
}

/** The claims (./claim.ts), loaded when first needed: they bring the in-sandbox clients. */
const claims = () => import("./claim.js");

/** A fork of `forkFrom`, its egress rules set once it exists (a failure to set them records it). */
async function fromFork(inputs: Inputs, forkFrom: string): Promise<Sandbox> {
  const made = await forkOf(forkFrom, inputs.timeoutSeconds, undefined, logFor(inputs), { mark: inputs.__nonce && `${inputs.__nonce}-${inputs.__generation ?? 0}` });
  const network = egressOf(inputs);
  if (network) await afterMade(inputs, made, () => platform().sandboxes.setNetwork(made.sandboxID, network));
  return made;
}

/** Marks the sandbox as made by this resource's finished create (./claim.ts). */
async function claimFor(id: string, tokens: Tokens, inputs: Inputs): Promise<void> {
  if (inputs.__nonce) await (await claims()).claim(id, tokens.envdAccessToken, inputs.__nonce);
}

/** How a create ends. */
export interface CreateOptions {
  /**
   * Its outputs from the create's answer, not from a read (GET /sandboxes/{id}) after it, when the
   * sandbox is one it made and left running. For a fleet's member (../sandbox-fleet/member-ops.ts),
   * whose state keeps only what that answer tells: the read was one more request in sequence per member.
   */
  fromAnswer?: boolean;
}

/** What only a read of the sandbox reports, which a create's answer does not. */
type ReadOnly = "startedAt" | "endAt" | "cpuCount" | "memoryMB" | "diskSizeMB";
/** A create's outputs, which lack what only a read reports when they are taken from its answer. */
type Created = Omit<State, ReadOnly> & Partial<Pick<State, ReadOnly>>;

/** Creates the sandbox `inputs` ask for: adopted, forked or made, provisioned, claimed, then paused if asked. */
export function createSandbox(inputs: Inputs): Promise<{ id: string; outs: State }>;
export function createSandbox(inputs: Inputs, options: CreateOptions): Promise<{ id: string; outs: Created }>;
export async function createSandbox(inputs: Inputs, options: CreateOptions = {}): Promise<{ id: string; outs: Created }> {
  const { sandboxes } = platform();
  const timeout = inputs.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  // check requires one of the two (./spec.ts), so a create without a fork has its template.
  const { made, adopted } = inputs.forkFrom !== undefined
    ? { made: await fromFork(inputs, inputs.forkFrom), adopted: false }
    : await fromTemplate(inputs, inputs.templateID ?? "", timeout);
  const { id, outs, failure } = await afterMade(inputs, made, () => finishCreate(inputs, options, made, adopted));
  if (!failure) return { id, outs };
  if (inputs.provision?.onFailure === "delete") {
    await afterMade(inputs, made, () => ignoreNotFound(() => sandboxes.kill(id)));
    throw new Error(`Sandbox ${id}: ${failure}\nThe sandbox was deleted (provision.onFailure: "delete").`);
  }
  throw new PartialCreateError(`Sandbox ${id}: ${failure}\nThe sandbox is kept; the next \`pulumi up\` runs the provisioning again.`, id, outs, inputs.__provider);
}

/** A create's steps once its sandbox exists: provisioned, claimed, then paused if asked; `failure`: why provisioning stopped. */
async function finishCreate(inputs: Inputs, options: CreateOptions, made: Sandbox, adopted: boolean): Promise<{ id: string; outs: Created; failure?: string | undefined }> {
  const { sandboxes } = platform();
  const timeout = inputs.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const id = made.sandboxID;
  const tokens = tokensOfMade(made);
  const { failure, ...provisioned } = await provisionIn(id, inputs, tokens, 0, !adopted);
  // Claimed before a pause: a paused sandbox's files cannot be written. A failed provisioning is
  // recorded too (a partial create), so its sandbox is as much the resource's as a finished one.
  await claimFor(id, tokens, inputs);
  // A create whose claim is held (a fleet's member) leaves its pause to whoever makes the claim, after it.
  const pause = () => applyState(id, "paused", timeout, logFor(inputs, tokens), inputs.pauseMode);
  const pausing = !failure && inputs.state === "paused" && !(await claims()).pauseAfterClaim(id, pause);
  if (pausing) await pause();
  // An adopted sandbox's answer is a connect's, of a sandbox an earlier run made: it is read, as a paused one is.
  const reported = options.fromAnswer && !adopted && !pausing ? fromAnswer(made, inputs.ports) : fromDetail(await sandboxes.get(id), inputs.ports);
  const outs: Created = { ...inputs, ...reported, ...tokens, ...provisioned };
  return { id, outs, failure };
}

export const sandboxHandlers: ResourceHandlers<"Sandbox"> = {
  create: (inputs) => createSandbox(inputs),

  async read(id, olds) {
    let detail: SandboxDetail;
    try {
      detail = await platform().sandboxes.get(id);
    } catch (err) {
      if (isNotFound(err)) return {}; // killed, or expired at its endAt
      throw err;
    }
    // A fork names no template, and its metadata is its parent's, not an input (./fork.ts): neither is drift.
    const fork = olds.forkFrom !== undefined;
    const props: State = { ...olds, ...fromDetail(detail, olds.ports), templateID: fork ? olds.templateID : olds.templateID ?? detail.templateID };
    props.envdAccessToken = detail.envdAccessToken ?? olds.envdAccessToken ?? null;
    const metadata = withoutMarkings(detail.metadata);
    if (!fork && !sameValue(metadata ?? {}, olds.metadata ?? {})) props.metadata = metadata;
    return { id, props };
  },

  async update(id, olds, news) {
    const changed = new Set(changedFields(sandboxSpec, olds, news));
    const log = logFor(news, olds);
    const timeout = news.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
    const reprovision = changed.has("provision") || olds.provisioned === false;
    // Resumed first when it is to run, or to run its provisioning again (a paused sandbox runs nothing).
    if (news.state === "running" || (reprovision && news.provision)) await applyState(id, "running", timeout, log);
    if (changed.has("network") || changed.has("allowInternetAccess")) await platform().sandboxes.setNetwork(id, networkBody(news));
    if (changed.has("timeoutSeconds") && news.timeoutSeconds !== undefined) await applyTimeout(id, news.timeoutSeconds, log);
    let outs: State = { ...olds, ...news };
    if (reprovision) {
      const { failure, ...provisioned } = await provisionIn(id, news, olds, runNumber(olds, news));
      outs = { ...outs, ...provisioned };
      if (failure) throw new PartialCreateError(`Sandbox ${id}: ${failure}\nThe next \`pulumi up\` runs the provisioning again.`, id, outs, news.__provider);
    }
    if (news.state === "paused") await applyState(id, "paused", timeout, log, news.pauseMode);
    return { outs: { ...outs, ...fromDetail(await platform().sandboxes.get(id), news.ports) } };
  },

  async delete(id) {
    await ignoreNotFound(() => platform().sandboxes.kill(id));
  },
};
