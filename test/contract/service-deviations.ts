/**
 * Where the real service answers outside its own published spec, and the emulator follows the
 * service, not the spec. Each row cites a section of docs/service.md (which cites the service's
 * handlers). Everything not listed here is held to the spec exactly; a status listed here must
 * still carry the spec's Error body. Keep it short: a row is a claim about the real service. The
 * rows hold for every platform contract (test/contract/exchanges.ts), the newest clients' too: a
 * status one client's contract lists and another's does not is a row here, saying which lists it.
 */

export interface Deviation {
  /** The operation (`GET /sandboxes/{sandboxID}`), or a pattern over operation names. */
  operation: string | RegExp;
  /** A status the operation does not list but the service answers, with an Error body. */
  status?: number;
  /** JSON paths, in the answer of `bodyStatus`, whose values the service sends outside the schema. */
  paths?: string[];
  bodyStatus?: number;
  /** The content type of the `status` answer when it is not the spec's JSON Error body (e.g. text). */
  contentType?: string;
  /** Where docs/service.md says so (a section anchor). */
  why: string;
}

export const DEVIATIONS: Deviation[] = [
  { operation: "GET /health", status: 200, contentType: "text/plain", why: "docs/service.md#health: 200 with the text \"Health check successful\", not the spec's 204" },
  { operation: /\{sandboxID\}/, status: 400, why: "docs/service.md#ids-and-names: an invalid sandbox ID gives 400 \"Invalid sandbox ID\" on every sandbox route" },
  // POST /v2/sandboxes: its 403, 404, 409 and 422 are listed by PyPI e2b 2.63.0's client, not yet by npm e2b 2.51.0's types.
  { operation: /^POST (\/v2)?\/sandboxes$/, status: 403, why: "docs/service.md#sandboxes: 403 when egressProxy is not enabled" },
  {
    operation: /^POST (\/v2)?\/sandboxes$/, status: 404,
    why: "docs/service.md#sandboxes and docs/service.md#template-names: 404 when the template or its tag is not found",
  },
  { operation: "POST /sandboxes", status: 429, why: "docs/service.md#sandboxes: 429 at the concurrency limit" },
  { operation: "POST /v2/sandboxes", status: 409, why: "docs/service.md#idempotent-creates: 409 while the create of the same Idempotency-Key still runs" },
  { operation: "POST /v2/sandboxes", status: 422, why: "docs/service.md#idempotent-creates: 422 for a used Idempotency-Key with another body" },
  { operation: /^POST (\/v2)?\/sandboxes\/\{sandboxID\}\/connect$/, status: 429, why: "docs/service.md#limits: a resume starts the sandbox through the same reservation as a create, so it gets the concurrency 429" },
  { operation: "PUT /sandboxes/{sandboxID}/network", status: 403, why: "docs/service.md#sandboxes: network.egressProxy may be feature-gated to 403" },
  {
    operation: "POST /sandboxes/{sandboxID}/pause", status: 503,
    why: "docs/service.md#sandbox-fields-of-the-newest-sdks: 503 while the guest agent does not answer (a files-only pause, or requireHealthyGuest); the newest spec lists it",
  },
  { operation: "POST /sandboxes/{sandboxID}/timeout", status: 409, why: "docs/service.md#sandboxes: 409 while the sandbox is being paused or killed" },
  { operation: "POST /v3/templates", status: 403, why: "docs/service.md#templates: 403 on an alias clash" },
  { operation: "POST /v3/templates", status: 409, why: "docs/service.md#templates: 409 on an alias clash" },
  { operation: "POST /v3/templates", status: 429, why: "docs/service.md#templates: 429 at the build concurrency limit" },
  { operation: "POST /v2/templates/{templateID}/builds/{buildID}", status: 400, why: "docs/service.md#templates: bad UUID, or the build is not waiting" },
  { operation: "POST /v2/templates/{templateID}/builds/{buildID}", status: 403, why: "docs/service.md#templates" },
  { operation: "POST /v2/templates/{templateID}/builds/{buildID}", status: 404, why: "docs/service.md#templates" },
  { operation: "POST /v2/templates/{templateID}/builds/{buildID}", status: 503, why: "docs/service.md#templates: no builder" },
  { operation: "GET /templates/{templateID}/files/{hash}", status: 503, why: "docs/service.md#templates" },
  { operation: "GET /templates/{templateID}/builds/{buildID}/status", status: 400, why: "docs/service.md#templates and docs/service.md#build-status: an unknown build gives 400, not 404" },
  { operation: "GET /templates/{templateID}/builds/{buildID}/status", status: 403, why: "docs/service.md#templates" },
  { operation: "GET /templates", status: 400, why: "docs/service.md#templates: a teamID that does not match the key" },
  { operation: "GET /templates/{templateID}", status: 403, why: "docs/service.md#templates" },
  { operation: "GET /templates/{templateID}", status: 404, why: "docs/service.md#templates: 404 \"Template X not found\"" },
  { operation: "PATCH /v2/templates/{templateID}", status: 403, why: "docs/service.md#templates" },
  { operation: "PATCH /v2/templates/{templateID}", status: 404, why: "docs/service.md#templates" },
  { operation: "GET /snapshots", status: 400, why: "docs/service.md#sandbox-snapshots: a bad sandboxID, name or nextToken is a 400" },
  { operation: "DELETE /templates/{templateID}", status: 400, why: "docs/service.md#templates: running or paused sandboxes use it" },
  { operation: "DELETE /templates/{templateID}", status: 403, why: "docs/service.md#templates" },
  { operation: "DELETE /templates/{templateID}", status: 404, why: "docs/service.md#templates" },
  { operation: /^POST \/templates(\/\{templateID\})?$/, status: 400, why: "docs/service.md#templates: v1 create/rebuild validate their body" },
  {
    operation: "POST /templates", status: 409,
    why: "docs/service.md#templates (POST /v3/templates): 409 on an alias clash; inferred for v1 create, which takes the same alias check",
  },
  { operation: /^POST \/templates(\/\{templateID\})?$/, status: 403, why: "docs/service.md#templates: another team's template" },
  { operation: /^POST \/templates(\/\{templateID\})?$/, status: 404, why: "docs/service.md#templates: 404 \"Template 'X' not found\"" },
  {
    operation: /^POST \/templates(\/\{templateID\})?$/, bodyStatus: 202, paths: ["/cpuCount", "/memoryMB"],
    why: "docs/service.md#templates: the v1 build's 202 fills only IDs, names and public; cpuCount and memoryMB come back 0",
  },
  { operation: /\/volumecontent\//, status: 401, why: "docs/service.md#volume-content-api: auth is a Bearer volume token (the spec's VolumeJWT security); without a valid one, 401" },
  { operation: /\/volumecontent\//, status: 400, why: "docs/service.md#platform-error-body: requests are checked against the schema first; a missing `path` (required, minLength 1) is a 400" },
  {
    operation: "PUT /volumecontent/{volumeID}/file", status: 409,
    why: "inferred from the spec's own `force` (\"Force overwrite of an existing file\"): without it an existing file is a conflict",
  },
  { operation: "POST /volumes", status: 403, why: "docs/service.md#volumes: \"use of volumes is not enabled\"" },
  { operation: "POST /volumes", status: 503, why: "docs/service.md#volumes" },
  { operation: /^(GET|DELETE) \/volumes\/\{volumeID\}$/, status: 400, why: "docs/service.md#volumes: 400 \"Invalid volume ID\" (not a UUID)" },
];

function applies(d: Deviation, operation: string): boolean {
  return typeof d.operation === "string" ? d.operation === operation : d.operation.test(operation);
}

/** Whether the service answers `status` to `operation` though the spec does not list it. */
export function extraStatus(operation: string, status: number): Deviation | undefined {
  return DEVIATIONS.find((d) => d.status === status && applies(d, operation));
}

/** Whether a schema violation at `path` of a `status` answer is one the service itself commits. */
export function toleratedPath(operation: string, status: number, path: string): Deviation | undefined {
  return DEVIATIONS.find((d) => d.bodyStatus === status && d.paths?.includes(path) && applies(d, operation));
}
