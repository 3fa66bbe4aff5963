/**
 * The team lookups (./lookup-queries.ts holds the table): the team's metrics and their maximum. Their
 * routes take the team's ID, which no call made with the API key answers: GET /teams does, with the
 * access token, so a program that configures one need not give the ID (docs/service.md#teams).
 */
import type { PlatformClient } from "../sdk/platform/client";
import { naming } from "./lookup-errors";
import type { LookupArgs, LookupResult } from "./lookup-shapes";

/**
 * The ID given, else the team of the API key among the access token's teams (the one whose key it is;
 * the only one when the service shows no key that matches). Fails saying what to give.
 */
export async function teamOf(client: PlatformClient, lookup: string, teamID: string | undefined): Promise<string> {
  if (teamID) return teamID;
  const give = "give the team's ID (the API key alone does not tell it; the dashboard's team settings show it)";
  if (!client.options.accessToken) throw new Error(`${lookup}: teamID: ${give}, or configure sandbox:accessToken (E2B_ACCESS_TOKEN) so the lookup finds it with GET /teams`);
  const teams = await client.teams.list();
  const found = teams.find((t) => t.apiKey === client.options.apiKey) ?? (teams.length === 1 ? teams[0] : undefined);
  if (!found) throw new Error(`${lookup}: teamID: ${give}: the access token's teams (${teams.map((t) => t.name).join(", ") || "none"}) show no API key that is the one configured`);
  return found.teamID;
}

/** GET /teams/{teamID}/metrics: the readings, oldest first. */
export async function teamMetrics(client: PlatformClient, args: LookupArgs<"getTeamMetrics">): Promise<LookupResult<"getTeamMetrics">> {
  const teamID = await teamOf(client, "getTeamMetrics", args.teamID);
  const readings = await naming("getTeamMetrics", "teamID", teamID, () => client.teams.metrics(teamID, { start: args.start, end: args.end }), ["permission_denied"]);
  return { metrics: readings.map(({ timestampUnix, concurrentSandboxes, sandboxStartRate }) => ({ timestampUnix, concurrentSandboxes, sandboxStartRate })) };
}

/** GET /teams/{teamID}/metrics/max: the highest reading of the metric, and when. */
export async function teamMetricsMax(client: PlatformClient, args: LookupArgs<"getTeamMetricsMax">): Promise<LookupResult<"getTeamMetricsMax">> {
  const teamID = await teamOf(client, "getTeamMetricsMax", args.teamID);
  const { timestampUnix, value } = await naming("getTeamMetricsMax", "teamID", teamID, () => client.teams.maxMetric(teamID, { metric: args.metric, start: args.start, end: args.end }), ["permission_denied"]);
  return { timestampUnix, value };
}
