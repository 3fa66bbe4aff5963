/**
 * Wire schemas of the Teams area (GET /teams, GET /teams/{teamID}/metrics[/max]), in the API's casing
 * (docs/service.md#teams).
 */
import { z } from "zod";

/** One item of GET /teams (access token): a team of the user, with an API key of it. */
export const Team = z.object({
  teamID: z.string(),
  name: z.string(),
  /** Secret. */
  apiKey: z.string(),
  isDefault: z.boolean(),
});
export type Team = z.infer<typeof Team>;

/** One reading of GET /teams/{teamID}/metrics. `timestamp` is deprecated (use timestampUnix, seconds). */
export const TeamMetric = z.object({
  timestamp: z.string(),
  timestampUnix: z.number(),
  concurrentSandboxes: z.number(),
  /** Sandboxes started per second over the step. */
  sandboxStartRate: z.number(),
});
export type TeamMetric = z.infer<typeof TeamMetric>;

/** The metrics GET /teams/{teamID}/metrics/max takes the maximum of (its required `metric`). */
export const TEAM_MAX_METRICS = ["concurrent_sandboxes", "sandbox_start_rate"] as const;
export type TeamMaxMetricName = (typeof TEAM_MAX_METRICS)[number];

/** Answer of GET /teams/{teamID}/metrics/max: the highest reading and when it was. */
export const TeamMetricMax = z.object({
  timestamp: z.string(),
  timestampUnix: z.number(),
  value: z.number(),
});
export type TeamMetricMax = z.infer<typeof TeamMetricMax>;
