/**
 * Teams area of the platform API (docs/service.md#teams). Listing the teams takes the access token
 * (`E2B_ACCESS_TOKEN`): it is how a holder of both credentials learns the ID of the API key's team,
 * which no call made with the key alone answers. The metrics take the API key, and only its own team.
 *
 * | method     | verb and path                          | auth    | success |
 * |------------|----------------------------------------|---------|---------|
 * | list       | GET /teams                             | Bearer  | 200     |
 * | metrics    | GET /teams/{teamID}/metrics            | API key | 200     |
 * | maxMetric  | GET /teams/{teamID}/metrics/max        | API key | 200     |
 */
import { z } from "zod";
import type { CallOptions, HttpClient } from "../transport/http";
import { Team, TeamMetric, TeamMetricMax, type TeamMaxMetricName } from "../schemas/teams";

const Teams_ = z.array(Team);
const TeamMetrics_ = z.array(TeamMetric);

/** A time range in Unix seconds; the service's default is the last 7 days. */
export interface TeamMetricsRange {
  start?: number;
  end?: number;
}

export class Teams {
  constructor(private readonly http: HttpClient) {}

  /** The user's teams, each with an API key of it. */
  list(call?: CallOptions): Promise<Team[]> {
    return this.http.call({ method: "GET", route: "/teams", auth: "bearer" }, Teams_, call);
  }

  /** The team's readings over the range, oldest first. @throws `permission_denied` (403) for another team's ID; `invalid_argument` for a bad range. */
  metrics(teamID: string, q: TeamMetricsRange = {}, call?: CallOptions): Promise<TeamMetric[]> {
    const op = { method: "GET", route: "/teams/{teamID}/metrics", params: { teamID }, query: { start: q.start, end: q.end }, auth: "apiKey" } as const;
    return this.http.call(op, TeamMetrics_, call);
  }

  /** The highest reading of one metric over the range, and when it was. Same errors as {@link metrics}. */
  maxMetric(teamID: string, q: TeamMetricsRange & { metric: TeamMaxMetricName }, call?: CallOptions): Promise<TeamMetricMax> {
    const op = { method: "GET", route: "/teams/{teamID}/metrics/max", params: { teamID }, query: { metric: q.metric, start: q.start, end: q.end }, auth: "apiKey" } as const;
    return this.http.call(op, TeamMetricMax, call);
  }
}
