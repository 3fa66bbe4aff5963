/**
 * Operations of the service's published spec (infra spec/openapi.yml) that the emulator does not
 * implement. Each answers 501 in the Error shape, naming the operation, so a client learns "not
 * here" instead of a 404 that reads like "no such sandbox". Listed last in the route table, so a
 * route that starts serving one of them takes over; the router's literal-segment rule keeps
 * `POST /templates/tags` from being taken for a rebuild of a template called "tags".
 * test/contract/served.test.ts keeps this list, the routes and the spec in step.
 */
import { ApiError } from "../http";
import type { Route } from "../router";

/** `METHOD /spec/path/{param}` of each operation the emulator does not serve. */
export const UNSERVED_OPERATIONS: readonly string[] = [
  "POST /v2/templates",
  "PATCH /templates/{templateID}",
  "POST /templates/{templateID}/builds/{buildID}",
  "GET /templates/{templateID}/builds/{buildID}/logs",
  "GET /nodes",
  "GET /nodes/{nodeID}",
  "POST /nodes/{nodeID}",
  "POST /admin/teams/{teamID}/sandboxes/kill",
  "GET /admin/sandboxes/running-counts",
  "POST /admin/teams/{teamID}/builds/cancel",
  "POST /admin/teams/{teamID}/api-keys",
  "DELETE /admin/teams/{teamID}/api-keys/{apiKeyID}",
  "POST /access-tokens",
  "DELETE /access-tokens/{accessTokenID}",
  "GET /api-keys",
  "POST /api-keys",
  "DELETE /api-keys/{apiKeyID}",
  "PATCH /api-keys/{apiKeyID}",
];

/** One 501 route per unserved operation; no credentials needed, so the answer is always the same. */
export function unservedRoutes(): Route[] {
  return UNSERVED_OPERATIONS.map((operation) => {
    const [method, path] = operation.split(" ") as [Route["method"], string];
    const pattern = path.replace(/\{([^}]+)\}/g, ":$1");
    return {
      method, pattern, auth: "none",
      handler: () => {
        throw new ApiError(501, `${operation} is not implemented by the emulator`);
      },
    };
  });
}
