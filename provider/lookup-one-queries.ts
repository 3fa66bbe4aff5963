/**
 * The lookups of one thing by ID or alias, and of many sandboxes' metrics (./lookup-queries.ts holds the
 * table). Each names the lookup and the argument when the team has no such thing (./lookup-errors.ts).
 */
import type { PlatformClient } from "../sdk/platform/client";
import type { SandboxDetail, SandboxMetric } from "../sdk/schemas/sandboxes";
import { naming, noneFound } from "./lookup-errors";
import type { LookupArgs, LookupResult } from "./lookup-shapes";

/** GET /sandboxes/{id}: a running or paused sandbox. */
export async function sandboxDetail(client: PlatformClient, args: LookupArgs<"getSandbox">): Promise<LookupResult<"getSandbox">> {
  return detailInfo(await naming("getSandbox", "sandboxID", args.sandboxID, () => client.sandboxes.get(args.sandboxID)));
}

function detailInfo(s: SandboxDetail): LookupResult<"getSandbox"> {
  const { sandboxID, templateID, alias, state, startedAt, endAt, cpuCount, memoryMB, diskSizeMB, envdVersion } = s;
  return {
    sandboxID, templateID, ...(alias ? { alias } : {}), state, metadata: { ...s.metadata }, startedAt, endAt, cpuCount, memoryMB, diskSizeMB, envdVersion,
    ...(s.envdAccessToken ? { envdAccessToken: s.envdAccessToken } : {}),
    ...(typeof s.allowInternetAccess === "boolean" ? { allowInternetAccess: s.allowInternetAccess } : {}),
    ...(s.domain ? { domain: s.domain } : {}),
    ...(s.lifecycle ? { onTimeout: s.lifecycle.onTimeout, autoResume: s.lifecycle.autoResume } : {}),
    ...(s.volumeMounts?.length ? { volumeMounts: Object.fromEntries(s.volumeMounts.map((m) => [m.path, m.name])) } : {}),
  };
}

/** GET /volumes/{id}: the volume and a token of its content API, minted by this call. */
export async function volumeDetail(client: PlatformClient, args: LookupArgs<"getVolume">): Promise<LookupResult<"getVolume">> {
  const { volumeID, name, token, domain } = await naming("getVolume", "volumeID", args.volumeID, () => client.volumes.get(args.volumeID));
  return { volumeID, name, token, ...(domain ? { domain } : {}) };
}

/** GET /templates/aliases/{alias}: the template the alias names. */
export async function templateAlias(client: PlatformClient, args: LookupArgs<"getTemplateAlias">): Promise<LookupResult<"getTemplateAlias">> {
  const found = await naming("getTemplateAlias", "alias", args.alias, () => client.templates.byAlias(args.alias));
  return { alias: args.alias, templateID: found.templateID, public: found.public };
}

/**
 * GET /sandboxes/metrics: the latest reading of each sandbox, in the order asked. The service leaves
 * out a sandbox with none, whether paused or unknown: only then does the lookup list the team's
 * sandboxes, to fail on an ID that names none of them.
 */
export async function sandboxesMetrics(client: PlatformClient, args: LookupArgs<"getSandboxesMetrics">): Promise<LookupResult<"getSandboxesMetrics">> {
  const readings = await naming("getSandboxesMetrics", "sandboxIDs", args.sandboxIDs.join(","), () => client.sandboxes.metrics(args.sandboxIDs));
  const missing = args.sandboxIDs.filter((id) => !readings[id]);
  if (missing.length > 0) {
    const known = new Set((await client.sandboxes.listAll({ state: ["running", "paused"], limit: 100 })).map((s) => s.sandboxID));
    const unknown = missing.find((id) => !known.has(id));
    if (unknown !== undefined) throw noneFound("getSandboxesMetrics", `sandboxIDs[${args.sandboxIDs.indexOf(unknown)}]`, unknown, "sandbox");
  }
  const metrics = [...new Set(args.sandboxIDs)].flatMap((sandboxID) => (readings[sandboxID] ? [{ sandboxID, ...readingOf(readings[sandboxID]) }] : []));
  return { metrics };
}

/** A reading as the lookups give it: without the deprecated `timestamp` (timestampUnix says when). */
export function readingOf(r: SandboxMetric): LookupResult<"getSandboxMetrics">["metrics"][number] {
  const { timestampUnix, cpuCount, cpuUsedPct, memUsed, memTotal, memCache, diskUsed, diskTotal } = r;
  return { timestampUnix, cpuCount, cpuUsedPct, memUsed, memTotal, memCache, diskUsed, diskTotal };
}
