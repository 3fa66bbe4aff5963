/**
 * SandboxFleet: many sandboxes of one shape as one resource (issue #42): a warm pool of identical
 * sandboxes, or one per person, each a little different. The engine writes a stack's whole state after
 * every step, so 500 Sandbox resources cost 500 writes of a growing state; a fleet is one step.
 *   create  GET /v2/sandboxes?metadata=<stack>  (once for the whole fleet: what an interrupted run made is
 *           adopted), then each member as a Sandbox is made (../sandbox/spec.ts), up to `maxParallel` at once
 *   read    GET /v2/sandboxes?metadata=<stack>  (one listing for every member: a member not in it is gone)
 *   update  each member added is created, each dropped is deleted (DELETE /sandboxes/{id}), each changed
 *           is updated as a Sandbox is (in place, or replaced inside the fleet: the new one made, then the
 *           old one deleted); members that did not change are not called. Fewer creates than the stack's
 *           listing has pages look for an interrupted run's sandbox by their marker, one GET each
 *   delete  DELETE /sandboxes/{id} of every member (404: already gone)
 * Replacement: never; the fleet is always updated in place.
 */
import { z } from "zod";
import { defineSpec } from "../../spec";
import { ENV_NAME, METADATA_NAME, SandboxInputs, SandboxOutputs } from "../sandbox/spec";

/** Members one fleet may hold: its state and one operation's calls grow with them. */
export const MAX_MEMBERS = 1000;
/** Calls in flight at once by default (see `maxParallel`). */
export const DEFAULT_MAX_PARALLEL = 16;

const KEY_RULE = "member keys must be 1 to 63 letters, digits, '_', '.', '@' or '-', starting with a letter or digit";
/** A member's key: it names the member in paths, logs and its sandbox's marker (`<fleet>/members/<key>`). */
export const MemberKey = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.@-]{0,62}$/, { error: KEY_RULE });

/**
 * A merged map of a fleet (`envVars`, `metadata`): a Sandbox's, with its names' rules, but a value may be
 * null, which takes the key away: a member drops a key of the fleet's `sandbox` (`{ TOKEN: null }`).
 */
function droppable(name: { what: string; key: RegExp; rule: string }, description: string | undefined) {
  return z.record(z.string().regex(name.key, { error: `${name.what} names ${name.rule}` }), z.string({ error: `${name.what} values must be strings or null` }).nullable(), {
    error: `must be an object of ${name.what} (string to string, or to null to drop the fleet's)`,
  }).optional().describe(`${description ?? ""} In a fleet, merged key by key over the fleet's; a member's null drops the fleet's key.`.trim());
}

/**
 * A Sandbox's inputs but `forkFrom` (a fleet is made from templates) and `timeout` (a name deprecated
 * before fleets existed), with the Sandbox's rules. Titled: schema.json names it, and its fields' types
 * are the Sandbox's own (../../schema/convert.ts).
 */
export const SandboxSettings = SandboxInputs.omit({ forkFrom: true, timeout: true }).extend({
  envVars: droppable(ENV_NAME, SandboxInputs.shape.envVars.description),
  metadata: droppable(METADATA_NAME, SandboxInputs.shape.metadata.description),
}).meta({ title: "SandboxSettings" });

export const SandboxFleetInputs = z.strictObject({
  sandbox: SandboxSettings
    .describe("The inputs every member gets: a Sandbox's inputs (all but `forkFrom`), with its rules. Its `envVars` and `provision` are kept secret, as a Sandbox's are."),
  members: z.record(MemberKey, SandboxSettings, { error: "must be an object: each member's key to the Sandbox inputs it overrides ({} for none)" }).optional()
    .describe("The members, by key, each with the Sandbox inputs it overrides (`{}` for none). A member's `envVars` and `metadata` merge over the fleet's key by key; any other input it gives replaces the fleet's. Give this or `count`."),
  count: z.number({ error: "must be a number of members" }).int({ error: "must be a whole number" })
    .min(0, { error: "must be 0 or more" }).max(MAX_MEMBERS, { error: `must be at most ${MAX_MEMBERS}` }).optional()
    .describe(`The number of identical members, keyed "0" to "count-1". Give this or \`members\`. At most ${MAX_MEMBERS}.`),
  maxParallel: z.number({ error: "must be a number of calls" }).int({ error: "must be a whole number" })
    .min(1, { error: "must be at least 1" }).max(64, { error: "must be at most 64" }).default(DEFAULT_MAX_PARALLEL)
    .describe(
      `Members worked on at once inside one create, update or delete. Default ${DEFAULT_MAX_PARALLEL}: a create takes the service ` +
      "100-200 ms, so 16 at once make about 100 sandboxes a second, the pace of a script on the official SDK, while " +
      "staying under the Hobby plan's 20 concurrent sandboxes (so a small team's other sandboxes keep room) and far under " +
      "the management API's 20,000 requests per 30 s. A plan's creation rate still paces the creates: each waits out the " +
      "service's 429 and its Retry-After. At the team's concurrent-sandbox limit each member waits for a slot, as a " +
      "Sandbox does. A change makes no call.",
    ),
});

/**
 * What the fleet reports of each member: what a Sandbox reports that a program uses. What holds
 * nothing is left out (no `urls` without ports, no `provisionResults` without commands): a fleet of
 * hundreds keeps them in every state the engine writes.
 */
export const FleetMember = SandboxOutputs.pick({ sandboxID: true, state: true, envdAccessToken: true, trafficAccessToken: true, provisioned: true })
  .extend({
    urls: SandboxOutputs.shape.urls.optional().describe("URL of each port in the member's `ports`, by port number (left out without ports). When public traffic is off, requests need the header `e2b-traffic-access-token: <trafficAccessToken>`."),
    provisionResults: SandboxOutputs.shape.provisionResults.optional().describe("Per provisioning command: exit code, duration and output tails (secrets redacted); left out without commands."),
  })
  .meta({ title: "FleetMember" });

export const SandboxFleetOutputs = z.object({
  sandboxes: z.record(z.string(), FleetMember)
    .describe("Each member that exists, by key: its sandbox as a Sandbox reports it. Its tokens and `provisionResults` are secret; the rest is not, so IDs and URLs can be read. A member that failed to be made is not here (the next `up` makes it)."),
  ready: z.number().int().describe("The members running as asked: made, provisioned, and in the `state` asked for (running unless `state: paused`)."),
});

export const sandboxFleetSpec = defineSpec({
  kind: "SandboxFleet",
  description:
    "Many sandboxes of one shape as one resource: a warm pool of identical sandboxes (`count`), or one per person, " +
    "each a little different (`members`). Each member is made, changed and deleted as a Sandbox is, up to " +
    "`maxParallel` at once, and only the members that change are touched. A member that fails (a bad template, a " +
    "provisioning command that exits non-zero, the service's refusal) fails alone: the fleet is recorded with every " +
    "member that exists and the next `pulumi up` retries only the failed ones. A sandbox that other resources " +
    "depend on one by one is better a Sandbox.",
  inputs: SandboxFleetInputs,
  outputs: SandboxFleetOutputs,
  // Every member's change is made inside the fleet: the fleet itself is never replaced.
  inPlace: ["sandbox", "members", "count"],
  localOnly: ["maxParallel"],
  secretInputs: [],
  secretOutputs: [],
  // Secret where a Sandbox's are, value by value: whole, `members` and `sandboxes` would hide every key and ID.
  secretWithin: [
    "sandbox.envVars", "sandbox.provision", "members.*.envVars", "members.*.provision",
    "sandboxes.*.envdAccessToken", "sandboxes.*.trafficAccessToken", "sandboxes.*.provisionResults",
  ],
  credentials: ["apiKey"],
  crossChecks: (inputs, unknown) => {
    const given = (key: string) => inputs[key] !== undefined || unknown.has(key);
    if (given("members") && given("count")) return [{ path: "count", reason: "give `members` or `count`, not both" }];
    if (!given("members") && !given("count")) {
      return [{ path: "members", reason: "required: give `members` (each member's key to the inputs it overrides, {} for none) or `count` (that many identical members)" }];
    }
    const members = inputs.members as Record<string, unknown> | undefined;
    if (members && Object.keys(members).length > MAX_MEMBERS) return [{ path: "members", reason: `must hold at most ${MAX_MEMBERS} members` }];
    return [];
  },
});
