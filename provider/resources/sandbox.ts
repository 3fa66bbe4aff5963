/**
 * Sandbox create/read/update/delete. The map of calls and the replace rules are in ../specs/sandbox.ts.
 *
 * Every sandbox carries a marker in its metadata: `<project>/<stack>/<name>#<generation>`. It is the
 * same on a re-run of an interrupted `up` and different for a replacement, so create first looks for a
 * sandbox with its marker and adopts it: a killed run or a lost answer never leaves a second sandbox.
 */
import type { NewSandbox, Sandbox, SandboxDetail } from "../../sdk/schemas/sandboxes";
import { changedFields } from "../diff";
import { sameValue } from "../spec";
import type { ProvisionInput } from "../specs/provision";
import { MARKER_KEY, sandboxSpec } from "../specs/sandbox";
import { credentials, platform } from "../runtime/context";
import { ignoreNotFound, isNotFound, type Inputs, type Outputs, type ResourceHandlers } from "../runtime/handlers";
import { resourceLogger } from "../runtime/log";
import { createOnce } from "../runtime/outcome";
import { PartialCreateError } from "../runtime/partial";
import { runProvision } from "../runtime/provision";

/** The service's default life of a sandbox, in seconds, when `timeout` is left out. */
const DEFAULT_TIMEOUT_SECONDS = 15;

const markerOf = (inputs: Inputs) => `${String(inputs.__resource ?? "")}#${Number(inputs.__generation ?? 0)}`;

/**
 * Every secret a sandbox's logs and stored output must not show: the credentials, the sandbox's
 * tokens, and each value the program marked secret (`__secrets`, see ../secret-values.ts). A value the
 * program did not mark secret is shown as it is.
 */
function secretsOf(inputs: Inputs, tokens: Outputs = {}): string[] {
  const marked = Array.isArray(inputs.__secrets) ? inputs.__secrets.filter((v): v is string => typeof v === "string") : [];
  const own = [tokens.envdAccessToken, tokens.trafficAccessToken].filter((v): v is string => typeof v === "string");
  return [...credentials(), ...marked, ...own];
}

const logFor = (inputs: Inputs, tokens?: Outputs) =>
  resourceLogger("Sandbox", String(inputs.__resource ?? ""), () => secretsOf(inputs, tokens));

function requestBody(inputs: Inputs): NewSandbox {
  const body: Record<string, unknown> = {
    templateID: inputs.templateID,
    metadata: { ...(inputs.metadata as object | undefined), [MARKER_KEY]: markerOf(inputs) },
    allow_internet_access: inputs.allowInternetAccess,
  };
  for (const k of ["timeout", "autoPause", "autoResume", "secure", "network", "envVars", "mcp", "volumeMounts"]) {
    if (inputs[k] !== undefined) body[k] = inputs[k];
  }
  if (body.allow_internet_access === undefined) delete body.allow_internet_access;
  return body as NewSandbox;
}

/** The user's metadata as the service reports it, without our marker. */
function userMetadata(detail: SandboxDetail): Record<string, string> | undefined {
  const entries = Object.entries(detail.metadata ?? {}).filter(([k]) => k !== MARKER_KEY);
  return entries.length ? Object.fromEntries(entries) : undefined;
}

function fromDetail(detail: SandboxDetail): Outputs {
  const { sandboxID, envdVersion, state, startedAt, endAt, cpuCount, memoryMB, diskSizeMB } = detail;
  return { sandboxID, envdVersion, state, startedAt, endAt, cpuCount, memoryMB, diskSizeMB, alias: detail.alias ?? undefined };
}

/**
 * What an interrupted run (or a lost answer) made for this marker. Connect answers with the same
 * shape as create, tokens included: a get would lose the trafficAccessToken, which only these two
 * calls return. For a running sandbox connect only ever extends its life, never shortens it.
 */
async function findByMarker(marker: string, timeout: number): Promise<Sandbox | undefined> {
  const [found] = await platform().sandboxes.listAll({ metadata: { [MARKER_KEY]: marker }, state: ["running", "paused"] });
  return found ? platform().sandboxes.connect(found.sandboxID, { timeout }) : undefined;
}

/** Runs `provision` and puts its outcome into `outs`; returns the failure text, if any. */
async function provisionInto(outs: Outputs, inputs: Inputs, id: string): Promise<string | undefined> {
  const provision = inputs.provision as ProvisionInput | undefined;
  if (!provision) {
    Object.assign(outs, { provisioned: true, provisionResults: [] });
    return undefined;
  }
  const token = outs.envdAccessToken as string | null | undefined;
  const outcome = await runProvision({ sandboxID: id, envdAccessToken: token }, provision, logFor(inputs, outs), secretsOf(inputs, outs));
  Object.assign(outs, { provisioned: outcome.ok, provisionResults: outcome.results });
  return outcome.failure;
}

/**
 * A paused sandbox has no deadline to move: the service refuses the call while it is paused, and a
 * resume (connect) sets its deadline anew. The value is recorded in state and takes effect then.
 */
async function applyTimeout(id: string, seconds: number, log: (line: string) => void): Promise<void> {
  const { sandboxes } = platform();
  if ((await sandboxes.get(id)).state === "paused") {
    log(`sandbox ${id} is paused: timeout ${seconds} s is recorded and applies from its next resume`);
    return;
  }
  await sandboxes.setTimeout(id, seconds);
}

export const sandboxHandlers: ResourceHandlers = {
  async create(inputs) {
    const { sandboxes } = platform();
    const marker = markerOf(inputs);
    const timeout = typeof inputs.timeout === "number" ? inputs.timeout : DEFAULT_TIMEOUT_SECONDS;
    const adopted = await findByMarker(marker, timeout);
    if (adopted) logFor(inputs)(`adopting sandbox ${adopted.sandboxID} made by an interrupted run`);
    const made = adopted ?? (await createOnce(() => sandboxes.create(requestBody(inputs)), () => findByMarker(marker, timeout)));
    const id = made.sandboxID;
    const outs: Outputs = {
      ...inputs, ...fromDetail(await sandboxes.get(id)),
      envdAccessToken: made.envdAccessToken ?? null, trafficAccessToken: made.trafficAccessToken ?? null,
    };
    const failure = await provisionInto(outs, inputs, id);
    if (!failure) return { id, outs };
    if ((inputs.provision as ProvisionInput).onFailure === "delete") {
      await ignoreNotFound(() => sandboxes.kill(id));
      throw new Error(`Sandbox ${id}: ${failure}\nThe sandbox was deleted (provision.onFailure: "delete").`);
    }
    throw new PartialCreateError(`Sandbox ${id}: ${failure}\nThe sandbox is kept; the next \`pulumi up\` runs the provisioning again.`, id, outs, inputs.__provider);
  },

  async read(id, olds) {
    let detail: SandboxDetail;
    try {
      detail = await platform().sandboxes.get(id);
    } catch (err) {
      if (isNotFound(err)) return {}; // killed, or expired at its endAt
      throw err;
    }
    const props: Outputs = { ...olds, ...fromDetail(detail), templateID: olds.templateID ?? detail.templateID };
    props.envdAccessToken = detail.envdAccessToken ?? olds.envdAccessToken ?? null;
    const metadata = userMetadata(detail);
    if (!sameValue(metadata ?? {}, olds.metadata ?? {})) props.metadata = metadata;
    return { id, props };
  },

  async update(id, olds, news) {
    const changed = new Set(changedFields(sandboxSpec, olds, news));
    const outs: Outputs = { ...olds, ...news };
    if (changed.has("timeout")) await applyTimeout(id, Number(news.timeout), logFor(news, olds));
    if (changed.has("provision") || olds.provisioned === false) {
      const failure = await provisionInto(outs, news, id);
      if (failure) throw new PartialCreateError(`Sandbox ${id}: ${failure}\nThe next \`pulumi up\` runs the provisioning again.`, id, outs, news.__provider);
    }
    return { outs: { ...outs, ...fromDetail(await platform().sandboxes.get(id)) } };
  },

  async delete(id) {
    await ignoreNotFound(() => platform().sandboxes.kill(id));
  },
};
