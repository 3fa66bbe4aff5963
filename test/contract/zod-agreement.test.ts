/**
 * The sdk's zod wire schemas (sdk/schemas/) agree with the service's spec, field by field
 * (schema-agreement.ts): a field the spec requires is required in zod, zod does not require what
 * the spec leaves optional, null is accepted where the spec allows it.
 */
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { ErrorBody } from "../../sdk/schemas/common";
import * as builds from "../../sdk/schemas/builds";
import * as events from "../../sdk/schemas/events";
import * as sandboxes from "../../sdk/schemas/sandboxes";
import * as secrets from "../../sdk/schemas/secrets";
import * as snapshots from "../../sdk/schemas/snapshots";
import * as teams from "../../sdk/schemas/teams";
import * as templates from "../../sdk/schemas/templates";
import * as volumes from "../../sdk/schemas/volumes";
import { LIFECYCLE_EVENTS_CONTRACT, loadContract } from "./exchanges";
import { disagreements, type Node } from "./schema-agreement";

const contract = loadContract();

/**
 * Schemas that read part of a body on purpose, and the disagreements that follow from it. Each is a
 * claim about the real service (docs/service.md), not a convenience.
 */
const PARTIAL: Record<string, { why: string; allow: (problem: string, path: string) => boolean }> = {
  TemplateBuildAccepted: {
    why:
      "docs/service.md#templates: the v1 build's 202 is declared TemplateLegacy but the handler fills only the IDs, aliases, names " +
      "(not in the spec) and public; the rest arrives zero-valued and is not read. A Go nil slice is sent as " +
      "null, so aliases and names are read leniently.",
    allow: (problem, path) =>
      problem === "required by the spec; zod does not declare it" || ["/names", "/aliases", "/public"].includes(path),
  },
};

/**
 * Fields of the newest official SDKs' spec (PyPI e2b 2.63.0's generated models) that the contract's
 * spec (an older infra commit) does not have yet, by schema and path: the only disagreement each may
 * show is that the contract lacks it. docs/service.md#sandbox-fields-of-the-newest-sdks says what each is.
 */
const NEWER: Record<string, string[]> = {
  NewSandbox: ["/network/dnsServers", "/network/httpsPorts"],
  ListedSandbox: ["/envdUnresponsiveAtPause"],
  SandboxDetail: ["/envdUnresponsiveAtPause", "/network/dnsServers", "/network/httpsPorts", "/pauseMode"],
  NewSnapshot: ["/memory"],
};
const newerOnly = (name: string, problem: string, path: string) =>
  problem === "declared in zod; the spec has no such field" && (NEWER[name] ?? []).includes(path);

/**
 * Where each zod schema sits in the contract: operation, `request` or a status, and `items` for list elements.
 * A hand list on purpose, and not one of kinds: it pairs the sdk's wire schemas (sdk/schemas/, one module per
 * service area) with the service's operations, which the registry of kinds cannot give. A kind reuses an area's
 * schemas (a Sandbox and a Snapshot share sandboxes'), and an area can serve no kind (metrics, logs), so it is
 * edited with sdk/schemas/ when an area or a wire schema is added (CONTRIBUTING.md's "as for any change"), never
 * because a kind is.
 */
const PAIRS: [name: string, operation: string, where: string, schema: z.ZodType, items?: "items"][] = [
  ["NewSandbox", "POST /sandboxes", "request", sandboxes.NewSandbox],
  ["Sandbox", "POST /sandboxes", "201", sandboxes.Sandbox],
  ["ListedSandbox", "GET /v2/sandboxes", "200", sandboxes.ListedSandbox, "items"],
  ["SandboxDetail", "GET /sandboxes/{sandboxID}", "200", sandboxes.SandboxDetail],
  ["SandboxMetric", "GET /sandboxes/{sandboxID}/metrics", "200", sandboxes.SandboxMetric, "items"],
  ["SandboxMetrics", "GET /sandboxes/metrics", "200", sandboxes.SandboxMetrics],
  ["SandboxLogs", "GET /sandboxes/{sandboxID}/logs", "200", sandboxes.SandboxLogs],
  ["TemplateBuildRequest", "POST /templates", "request", templates.TemplateBuildRequest],
  ["TemplateBuildAccepted", "POST /templates", "202", templates.TemplateBuildAccepted],
  ["Template", "GET /templates", "200", templates.Template, "items"],
  ["TemplateAlias", "GET /templates/aliases/{alias}", "200", templates.TemplateAlias],
  ["TemplateWithBuilds", "GET /templates/{templateID}", "200", templates.TemplateWithBuilds],
  ["TemplateBuildInfo", "GET /templates/{templateID}/builds/{buildID}/status", "200", templates.TemplateBuildInfo],
  ["TemplateUpdateResponse", "PATCH /v2/templates/{templateID}", "200", templates.TemplateUpdateResponse],
  ["Team", "GET /teams", "200", teams.Team, "items"],
  ["TeamMetric", "GET /teams/{teamID}/metrics", "200", teams.TeamMetric, "items"],
  ["TeamMetricMax", "GET /teams/{teamID}/metrics/max", "200", teams.TeamMetricMax],
  ["NewVolume", "POST /volumes", "request", volumes.NewVolume],
  ["VolumeAndToken", "POST /volumes", "201", volumes.VolumeAndToken],
  ["Volume", "GET /volumes", "200", volumes.Volume, "items"],
  ["TemplateBuildRequestV3", "POST /v3/templates", "request", builds.TemplateBuildRequestV3],
  ["TemplateRequestResponseV3", "POST /v3/templates", "202", builds.TemplateRequestResponseV3],
  ["TemplateBuildFileUpload", "GET /templates/{templateID}/files/{hash}", "201", builds.TemplateBuildFileUpload],
  ["TemplateBuildStartV2", "POST /v2/templates/{templateID}/builds/{buildID}", "request", builds.TemplateBuildStartV2],
  ["AssignedTemplateTags", "POST /templates/tags", "201", builds.AssignedTemplateTags],
  ["TemplateTag", "GET /templates/{templateID}/tags", "200", builds.TemplateTag, "items"],
  ["NewSnapshot", "POST /sandboxes/{sandboxID}/snapshots", "request", snapshots.NewSnapshot],
  ["SnapshotInfo", "POST /sandboxes/{sandboxID}/snapshots", "201", snapshots.SnapshotInfo],
  ["SnapshotInfo", "GET /snapshots", "200", snapshots.SnapshotInfo, "items"],
  ["NewSecret", "POST /secrets", "request", secrets.NewSecret],
  ["SecretInfo", "POST /secrets", "201", secrets.SecretInfo],
  ["SecretInfo", "GET /secrets", "200", secrets.SecretInfo, "items"],
  ["SecretInfo", "GET /secrets/{secretID}", "200", secrets.SecretInfo],
  ["SecretUpdate", "POST /secrets/{secretID}", "request", secrets.SecretUpdate],
  ["SecretInfo", "POST /secrets/{secretID}", "200", secrets.SecretInfo],
];

/** Lifecycle events and webhooks, held to the contract written from the service's docs (exchanges.ts). */
const EVENT_PAIRS: typeof PAIRS = [
  ["NewWebhook", "POST /events/webhooks", "request", events.NewWebhook],
  ["Webhook", "POST /events/webhooks", "201", events.Webhook],
  ["Webhook", "GET /events/webhooks", "200", events.Webhook, "items"],
  ["WebhookUpdate", "PATCH /events/webhooks/{webhookID}", "request", events.WebhookUpdate],
  ["SandboxLifecycleEvent", "GET /events/sandboxes", "200", events.SandboxLifecycleEvent, "items"],
];
const eventsContract = loadContract(LIFECYCLE_EVENTS_CONTRACT);

function specSchema(operation: string, where: string, items?: "items", from = contract): Node {
  const op = from.operations[operation];
  if (!op) throw new Error(`the contract has no ${operation}`);
  const schema = (where === "request" ? op.request?.schema : op.responses[where]?.schema) as Node | undefined;
  if (!schema) throw new Error(`the contract has no ${where} body for ${operation}`);
  return items ? (schema.items as Node) : schema;
}

/** The zod schema as the wire sees it: what it accepts (input), not what it returns after transforms. */
const jsonOf = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Node;

describe("sdk/schemas agree with the spec", () => {
  test.each(PAIRS)("%s ↔ %s, %s", (name, operation, where, schema, items) => {
    const partial = PARTIAL[name];
    const found = disagreements(jsonOf(schema), specSchema(operation, where, items))
      .filter((d) => !partial?.allow(d.problem, d.path) && !newerOnly(name, d.problem, d.path))
      .map((d) => `${name}${d.path}: ${d.problem}`);
    expect(found).toEqual([]);
  });

  test.each(EVENT_PAIRS)("%s ↔ %s, %s (the docs' contract)", (name, operation, where, schema, items) => {
    const found = disagreements(jsonOf(schema), specSchema(operation, where, items, eventsContract)).map((d) => `${name}${d.path}: ${d.problem}`);
    expect(found).toEqual([]);
  });

  test("ErrorBody ↔ the spec's Error", () => {
    expect(disagreements(jsonOf(ErrorBody), contract.errorSchema as Node)).toEqual([]);
  });
});

describe("the comparison can fail", () => {
  const spec: Node = { type: "object", required: ["a"], properties: { a: { type: "string" }, b: { type: ["string", "null"] } } };
  test("a required field optional in zod, an optional one required, null refused, an unknown field", () => {
    const zod = jsonOf(z.object({ a: z.string().optional(), b: z.string(), c: z.number() }));
    expect(disagreements(zod, spec)).toEqual([
      { path: "/a", problem: "required by the spec; optional in zod" },
      { path: "/b", problem: "optional in the spec; required in zod" },
      { path: "/b", problem: "the spec allows null; zod does not" },
      { path: "/c", problem: "declared in zod; the spec has no such field" },
    ]);
  });
});
