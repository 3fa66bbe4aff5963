/**
 * The arguments and results of the metrics lookups of a sandbox, of the team and of many sandboxes, beside
 * ./lookup-shapes.ts, whose table uses them. Only zod here, as there.
 */
import { z } from "zod";
import { TEAM_MAX_METRICS } from "../sdk/schemas/teams";

const seconds = (what: string) => z.number().int().nonnegative().optional().describe(what);

/** A team's ID is optional: the lookup finds the API key's team with the access token when there is one (./lookup-team.ts). */
const teamRange = {
  teamID: z.string().min(1, { error: "must not be empty" }).optional()
    .describe("The API key's team's ID. Default: found with the access token (`sandbox:accessToken`), which is then needed."),
  start: seconds("From this time (Unix seconds). Default: 7 days before `end`."),
  end: seconds("Up to this time (Unix seconds). Default: now."),
};

export const GetTeamMetricsArgs = z.strictObject(teamRange);

export const TeamMetric = z.object({
  timestampUnix: z.number().int().describe("When (Unix seconds)."),
  concurrentSandboxes: z.number().int().describe("Sandboxes running then."),
  sandboxStartRate: z.number().describe("Sandboxes started per second over the step."),
});

export const GetTeamMetricsMaxArgs = z.strictObject({
  ...teamRange,
  metric: z.enum(TEAM_MAX_METRICS).describe("The metric: `concurrent_sandboxes` or `sandbox_start_rate`."),
});

export const TeamMetricMax = z.object({
  timestampUnix: z.number().int().describe("When the highest reading was (Unix seconds)."),
  value: z.number().describe("The highest reading."),
});

export const GetSandboxesMetricsArgs = z.strictObject({
  sandboxIDs: z.array(z.string().min(1, { error: "must not be empty" })).min(1, { error: "must name at least one sandbox" })
    .describe("The sandboxes' IDs."),
});

export const SandboxMetric = z.object({
  timestampUnix: z.number().int().describe("When it was measured (Unix seconds)."),
  cpuCount: z.number().int().describe("vCPUs."),
  cpuUsedPct: z.number().describe("CPU used, in percent."),
  memUsed: z.number().describe("Memory used, in bytes."),
  memTotal: z.number().describe("Memory, in bytes."),
  memCache: z.number().describe("Memory used as cache, in bytes."),
  diskUsed: z.number().describe("Disk used, in bytes."),
  diskTotal: z.number().describe("Disk, in bytes."),
});

/** The latest reading of one of many sandboxes: which, and the reading. */
export const SandboxMetricOf = z.object({ sandboxID: z.string().describe("The sandbox's ID.") }).extend(SandboxMetric.shape);
