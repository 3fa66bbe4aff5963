/**
 * Sandbox create/read/update/delete. The map of calls and the replace rules are in ../specs/sandbox.ts.
 *
 * Every sandbox carries a marker in its metadata: `<project>/<stack>/<name>#<generation>`. It is the
 * same on a re-run of an interrupted `up` and different for a replacement, so create first looks for a
 * sandbox with its marker and adopts it: a killed run or a lost answer never leaves a second sandbox.
 */
import type { NewSandbox, SandboxDetail } from "../../sdk/schemas/sandboxes";
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

const markerOf = (inputs: Inputs) => `${String(inputs.__resource ?? "")}#${Number(inputs.__generation ?? 0)}`;

/** Every secret a sandbox's logs and stored output must not show. */
function secretsOf(inputs: Inputs, token?: string | null): string[] {
  const env = Object.values((inputs.envVars as Record<string, string> | undefined) ?? {});
  return [...credentials(), ...env, ...(token ? [token] : [])];
}

const logFor = (inputs: Inputs, token?: string | null) =>
  resourceLogger("Sandbox", String(inputs.__resource ?? ""), () => secretsOf(inputs, token));

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

async function findByMarker(marker: string): Promise<SandboxDetail | undefined> {
  const [found] = await platform().sandboxes.listAll({ metadata: { [MARKER_KEY]: marker }, state: ["running", "paused"] });
  return found ? platform().sandboxes.get(found.sandboxID) : undefined;
}

/** Runs `provision` and puts its outcome into `outs`; returns the failure text, if any. */
async function provisionInto(outs: Outputs, inputs: Inputs, id: string, token: string | null | undefined): Promise<string | undefined> {
  const provision = inputs.provision as ProvisionInput | undefined;
  if (!provision) {
    Object.assign(outs, { provisioned: true, provisionResults: [] });
    return undefined;
  }
  const outcome = await runProvision({ sandboxID: id, envdAccessToken: token }, provision, logFor(inputs, token), secretsOf(inputs, token));
  Object.assign(outs, { provisioned: outcome.ok, provisionResults: outcome.results });
  return outcome.failure;
}

export const sandboxHandlers: ResourceHandlers = {
  async create(inputs) {
    const { sandboxes } = platform();
    const marker = markerOf(inputs);
    const adopted = await findByMarker(marker);
    if (adopted) logFor(inputs)(`adopting sandbox ${adopted.sandboxID} made by an interrupted run`);
    const made = adopted ?? (await createOnce(() => sandboxes.create(requestBody(inputs)), () => findByMarker(marker)));
    const id = made.sandboxID;
    const token = made.envdAccessToken;
    const detail = adopted ?? (await sandboxes.get(id));
    const trafficAccessToken = "trafficAccessToken" in made ? made.trafficAccessToken : null;
    const outs: Outputs = { ...inputs, ...fromDetail(detail), envdAccessToken: token ?? null, trafficAccessToken: trafficAccessToken ?? null };
    const failure = await provisionInto(outs, inputs, id, token);
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
    if (changed.has("timeout")) await platform().sandboxes.setTimeout(id, Number(news.timeout ?? 15));
    const token = olds.envdAccessToken as string | null | undefined;
    const outs: Outputs = { ...olds, ...news };
    if (changed.has("provision") || olds.provisioned === false) {
      const failure = await provisionInto(outs, news, id, token);
      if (failure) throw new PartialCreateError(`Sandbox ${id}: ${failure}\nThe next \`pulumi up\` runs the provisioning again.`, id, outs, news.__provider);
    }
    return { outs: { ...outs, ...fromDetail(await platform().sandboxes.get(id)) } };
  },

  async delete(id) {
    await ignoreNotFound(() => platform().sandboxes.kill(id));
  },
};
