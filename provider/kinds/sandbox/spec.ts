/**
 * Sandbox: a running sandbox from a template, optionally provisioned by commands run inside it.
 *   create  GET /v2/sandboxes?metadata=<stack>  (adopt what an interrupted run made; one list per stack
 *           answers the creates of ~10 s), else POST /sandboxes;
 *           or, with `forkFrom`, POST /sandboxes/{forkFrom}/fork (count 1; docs/service.md#sandbox-fork),
 *           then PUT /sandboxes/{id}/network when egress rules are given;
 *           then each `provision` command through the in-sandbox process service (Start, streamed)
 *   read    GET /sandboxes/{id}                  (404 or expired: gone)
 *   update  `state`: POST /sandboxes/{id}/pause (`{memory: false}` with `pauseMode: filesystem`), or
 *           POST /sandboxes/{id}/connect to resume; `pauseMode`: no call, it applies at the next pause;
 *           `network` egress (allowOut, denyOut, dnsServers, rules) and `allowInternetAccess`: PUT /sandboxes/{id}/network;
 *           `timeoutSeconds`: POST /sandboxes/{id}/timeout (not while paused); `provision`: re-run it in the same
 *           sandbox (a change of `logging` or `onFailure` alone re-runs nothing); `ports`: no call, new `urls`
 *   delete  DELETE /sandboxes/{id}               (404: already gone)
 * Replacement: every other input (the service cannot change a live sandbox; `lifecycle` too, sent as
 *   autoPause/autoPauseMemory), `provision.triggers`, and `network.allowPublicTraffic` /
 *   `network.maskRequestHost` / `network.httpsPorts` (ingress is fixed at creation).
 */
import { z } from "zod";
import { defineSpec, getPath } from "../../spec";
import { EgressRules } from "./egress-rules";
import { PortsInput, PortUrls } from "./ports";
import { ProvisionInput, ProvisionResult } from "./provision";

/** Metadata key that marks a sandbox with the Pulumi resource that made it (see provider/kinds/sandbox/sandbox.ts). */
export const MARKER_KEY = "pulumi-sandbox.resource";

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const isCidrOrIp = (s: string) => {
  const [ip, bits, extra] = s.split("/");
  if (extra !== undefined || ip === undefined || !IPV4.test(ip)) return false;
  return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= 32);
};
const isDomain = (s: string) => /^(\*\.)?([a-z0-9-]+\.)+[a-z]{2,}$/i.test(s);
/** 0.0.0.0/0 is all traffic; 0.0.0.0 itself (alone or as a CIDR's address) names nothing, and the service refuses it. */
const ALL_TRAFFIC = "0.0.0.0/0";
const namesSomething = (s: string) => s === ALL_TRAFFIC || s.split("/")[0] !== "0.0.0.0";
const stringMap = (what: string, key: RegExp, keyRule: string) =>
  z.record(z.string().regex(key, { error: `${what} names ${keyRule}` }), z.string({ error: `${what} values must be strings` }), {
    error: `must be an object of ${what} (string to string)`,
  });

/** The rules of `envVars` and `metadata` names: a fleet's maps, whose values may also be null, follow them too (../sandbox-fleet/spec.ts). */
export const ENV_NAME = { what: "environment variable", key: /^[A-Za-z_][A-Za-z0-9_]*$/, rule: "must match ^[A-Za-z_][A-Za-z0-9_]*$" };
export const METADATA_NAME = { what: "metadata", key: /^(?!pulumi-sandbox\.)/, rule: "must not start with the reserved prefix 'pulumi-sandbox.'" };

/** envd's port in every sandbox: the service's proxy always reaches it itself, so `httpsPorts` may not name it. */
const ENVD_PORT = 49983;
const PORT_RULE = "must be a port number from 1 to 65535";

/** What a pause keeps: memory and files, or only the files (docs/service.md#sandbox-fields-of-the-newest-sdks). */
const PauseModeInput = z.enum(["full", "filesystem"], { error: 'must be "full" or "filesystem"' });

const Network = z.strictObject({
  allowPublicTraffic: z.boolean({ error: "must be true or false" }).optional()
    .describe("Whether the sandbox's ports are reachable without the traffic access token. Default true; false requires `secure`."),
  allowOut: z.array(z.string()
    .refine((s) => isCidrOrIp(s) || isDomain(s), { error: "must be a CIDR, an IPv4 address or a domain name" })
    .refine(namesSomething, { error: "0.0.0.0 names no address (0.0.0.0/0 is all traffic)" })).optional()
    .describe("Egress allowed (CIDRs, IPs or domain names), taking precedence over denyOut. Domain names need `0.0.0.0/0` in denyOut."),
  denyOut: z.array(z.string()
    .refine(isCidrOrIp, { error: "must be a CIDR or an IPv4 address (domains are not allowed here)" })
    .refine(namesSomething, { error: "0.0.0.0 names no address (0.0.0.0/0 is all traffic)" })).optional()
    .describe("Egress denied (CIDRs or IPs); `0.0.0.0/0` denies all."),
  dnsServers: z.array(z.string({ error: "must be a string" })
    .refine((s) => IPV4.test(s), { error: "must be an IPv4 address (the service takes no IPv6 address, CIDR or name)" }), { error: "must be a list of IPv4 addresses" }).optional()
    .describe("DNS servers (IPv4 addresses) the sandbox may reach when `allowOut` names a domain. Left out, the service's default (8.8.8.8); `[]`, none. It does not change the sandbox's /etc/resolv.conf. Changed in place with the other egress rules."),
  maskRequestHost: z.string({ error: "must be a string" }).optional().describe("Host header to present to the sandbox's services."),
  httpsPorts: z.array(z.number({ error: PORT_RULE }).int({ error: PORT_RULE }).min(1, { error: PORT_RULE }).max(65_535, { error: PORT_RULE })
    .refine((p) => p !== ENVD_PORT, { error: `must not be ${ENVD_PORT}: it is envd's own port, which the service's proxy always reaches itself (the service refuses it)` }), {
    error: "must be a list of port numbers",
  }).optional()
    .describe("Ports whose server speaks HTTPS: the service's proxy reaches them over TLS, without verifying the certificate (a self-signed one works); their URL in `urls` stays the same. Never envd's port 49983. Fixed at creation: a change replaces the sandbox."),
  rules: EgressRules.optional(),
});

const OnTimeout = z.strictObject({
  action: z.enum(["pause", "kill"], { error: 'must be "pause" or "kill"' })
    .describe("What happens when the sandbox's timeout passes: `kill` (the service's default) or `pause`. The same as `autoPause` (true is `pause`), which may be given too when it agrees."),
  mode: PauseModeInput.optional()
    .describe("With `action: pause`, what the timeout's pause keeps: `full` (the service's default) keeps memory and files; `filesystem` keeps only the files (sent as `autoPauseMemory: false`), so the resume boots the sandbox cold, and cannot be combined with `autoResume` (such a sandbox is resumed only explicitly)."),
}, { error: "must be an object {action, mode}" });

const VolumeMount = z.strictObject({
  name: z.string({ error: "must be a string" }).regex(/^[a-zA-Z0-9_-]+$/, { error: "must be a volume name (pattern ^[a-zA-Z0-9_-]+$)" })
    .describe("Name of the volume to mount."),
  path: z.string({ error: "must be a string" })
    .refine((p) => p.startsWith("/"), { error: "must be an absolute path (start with /)" })
    .refine((p) => p === "/" || (!p.endsWith("/") && !p.split("/").slice(1).some((s) => s === "" || s === "." || s === "..")), {
      error: "must be a clean path: no '.', '..', empty segments or trailing '/'",
    })
    .describe("Absolute path in the sandbox where the volume appears."),
});

/**
 * What the fork call cannot set: POST /sandboxes/{id}/fork takes only a timeout and a count, and the
 * fork inherits the rest from its parent (docs/service.md#sandbox-fork). Egress rules are not here:
 * a PUT .../network sets them on the fork.
 */
const NOT_WITH_FORK = ["templateID", "autoPause", "autoResume", "lifecycle", "secure", "metadata", "envVars", "mcp", "volumeMounts", "network.allowPublicTraffic", "network.maskRequestHost"];

function forkChecks(inputs: Record<string, unknown>, unknown: ReadonlySet<string>): { path: string; reason: string }[] {
  const given = (key: string) => inputs[key] !== undefined || unknown.has(key);
  if (!given("forkFrom")) {
    return !given("templateID") ? [{ path: "templateID", reason: "required: give the template (ID or alias) to create from, or forkFrom to fork a sandbox" }] : [];
  }
  return NOT_WITH_FORK.filter((path) => getPath(inputs, path) !== undefined || unknown.has(path)).map((path) => ({
    path, reason: "not allowed with forkFrom: a fork takes its parent's (the fork call sets only the timeout); leave it out",
  }));
}

/**
 * `lifecycle.onTimeout` against `autoPause` (two names for one choice: they must agree), its `mode`
 * (only for a pause; `filesystem` not with auto-resume, which the service refuses), and `pauseMode`
 * (only with `state: paused`, the pause it is for).
 */
function lifecycleChecks(inputs: Record<string, unknown>, unknown: ReadonlySet<string>): { path: string; reason: string }[] {
  const failures: { path: string; reason: string }[] = [];
  const onTimeout = (inputs.lifecycle as { onTimeout?: { action?: string; mode?: string } } | undefined)?.onTimeout;
  const action = onTimeout?.action;
  if (action !== undefined && typeof inputs.autoPause === "boolean" && inputs.autoPause !== (action === "pause")) {
    failures.push({ path: "lifecycle.onTimeout.action", reason: `"${action}" contradicts autoPause: ${inputs.autoPause} (both say what happens at the timeout); give one of them, or make them agree` });
  }
  if (onTimeout?.mode !== undefined && action === "kill") {
    failures.push({ path: "lifecycle.onTimeout.mode", reason: 'only applies with action "pause" (it says what the timeout\'s pause keeps); leave it out' });
  }
  if (onTimeout?.mode === "filesystem" && action === "pause" && (inputs.autoResume as { enabled?: boolean } | undefined)?.enabled === true) {
    failures.push({
      path: "lifecycle.onTimeout.mode",
      reason: '"filesystem" cannot be combined with autoResume.enabled: true: a files-only pause boots cold and is resumed only explicitly (the service refuses it)',
    });
  }
  if (inputs.pauseMode !== undefined && inputs.state !== "paused" && !unknown.has("state")) {
    failures.push({ path: "pauseMode", reason: 'only applies with state: "paused" (it says what that pause keeps); set state: "paused" or leave it out' });
  }
  return failures;
}

/** A sandbox's time to live, in seconds. */
const Seconds = z.number({ error: "must be a number of seconds" }).int({ error: "must be a whole number of seconds" })
  .min(1, { error: "must be greater than 0 (the service refuses 0)" }).max(86_400, { error: "must be at most 86400 (24 hours)" }).optional();

export const SandboxInputs = z.strictObject({
  templateID: z.string({ error: "must be a string (a template ID or alias)" }).min(1, { error: "must not be empty" }).optional()
    .describe("Template (ID or alias), or snapshot ID, to create the sandbox from. Required unless `forkFrom` is given."),
  forkFrom: z.string({ error: "must be a string (the ID of a running sandbox)" }).min(1, { error: "must not be empty" })
    .regex(/^[A-Za-z0-9-]*$/, { error: "must be a sandbox ID (letters, digits and '-')" }).optional()
    .describe("ID of a running sandbox to fork (POST /sandboxes/{id}/fork) instead of creating from a template. The new sandbox starts from a checkpoint of it (the service also keeps its memory) and takes its template, metadata, environment, network, volume mounts and lifecycle settings, so those inputs must be left out; the egress rules (`network.allowOut`, `network.denyOut`, `allowInternetAccess`) are set after the fork. A change replaces the sandbox."),
  timeoutSeconds: Seconds
    .describe("Time to live in seconds, counted from creation (or from the last change of this value). Service default 15. Changed in place; removing it keeps the current deadline. On a paused sandbox a change is recorded and applies from its next resume."),
  autoPause: z.boolean({ error: "must be true or false" }).optional().describe("Pause instead of killing the sandbox when its timeout passes. Default false."),
  autoResume: z.strictObject({ enabled: z.boolean({ error: "must be true or false" }) }).optional()
    .describe("Resume a paused sandbox when traffic reaches it."),
  lifecycle: z.strictObject({ onTimeout: OnTimeout.describe("What happens when the timeout passes, and what a pause then keeps.") }, { error: "must be an object {onTimeout}" }).optional()
    .describe("What happens to the sandbox when its timeout passes (the official SDKs' `lifecycle.onTimeout`), sent as `autoPause` and `autoPauseMemory`. A change replaces the sandbox."),
  secure: z.boolean({ error: "must be true or false" }).optional()
    .describe("Require the sandbox's access token (envdAccessToken) for every in-sandbox call."),
  allowInternetAccess: z.boolean({ error: "must be true or false" }).optional()
    .describe("When false, all egress is denied (as denyOut 0.0.0.0/0). Sent as `allow_internet_access`."),
  network: Network.optional().describe("Egress and ingress rules."),
  metadata: stringMap(METADATA_NAME.what, METADATA_NAME.key, METADATA_NAME.rule).optional()
    .describe("Free-form string metadata; sandboxes can be listed by it."),
  envVars: stringMap(ENV_NAME.what, ENV_NAME.key, ENV_NAME.rule).optional()
    .describe("Environment variables of every process in the sandbox. Secret."),
  mcp: z.record(z.string(), z.unknown(), { error: "must be an object" }).nullable().optional().describe("MCP configuration, passed through."),
  volumeMounts: z.array(VolumeMount, { error: "must be a list of {name, path}" })
    .refine((mounts) => new Set(mounts.map((m) => m.path)).size === mounts.length, { error: "mount paths must be unique" }).optional()
    .describe("Volumes to mount, by name, at absolute paths."),
  provision: ProvisionInput.optional()
    .describe("Commands run inside the sandbox after it is created. A change re-runs them in the same sandbox; a change of `triggers` replaces the sandbox."),
  state: z.enum(["running", "paused"], { error: "must be \"running\" or \"paused\"" }).optional()
    .describe("The state to keep the sandbox in: `paused` pauses it (POST .../pause; memory and files are kept, or only the files with `pauseMode: filesystem`), `running` resumes it (POST .../connect). Left out, the service's own pauses (autoPause) are left alone; set, `pulumi refresh` shows them as drift and the next `up` resumes it."),
  pauseMode: PauseModeInput.optional()
    .describe("What a pause by `state: paused` keeps: `full` (the default) keeps memory and files, so processes continue at the resume; `filesystem` keeps only the files (POST .../pause with `memory: false`), so the resume boots the sandbox cold. Only with `state: paused`. Changed in place, with no call: it applies at the next pause (a sandbox already paused keeps what its pause saved)."),
  ports: PortsInput.optional()
    .describe("Ports the sandbox serves; each gets a URL in `urls`. A change is made in place, with no call to the service."),
  timeout: Seconds.describe("Deprecated: the name of `timeoutSeconds` before 0.2, kept until 0.3. A value given here is taken as `timeoutSeconds`."),
});


export const SandboxOutputs = z.object({
  sandboxID: z.string().describe("The sandbox's ID."),
  alias: z.string().optional().describe("Alias of the template it was created from."),
  envdVersion: z.string().describe("Version of the in-sandbox server."),
  envdAccessToken: z.string().nullable().optional().describe("Access token of the in-sandbox API (secure sandboxes only). Secret."),
  trafficAccessToken: z.string().nullable().optional().describe("Token to reach the sandbox's ports when public traffic is off. Secret."),
  state: z.string().describe("running or paused."),
  startedAt: z.string().describe("When the sandbox started (RFC 3339)."),
  endAt: z.string().describe("When the sandbox expires (RFC 3339)."),
  cpuCount: z.number().describe("CPU cores."),
  memoryMB: z.number().describe("Memory in MiB."),
  diskSizeMB: z.number().describe("Disk size in MiB."),
  provisioned: z.boolean().describe("Whether every provisioning command succeeded."),
  urls: PortUrls,
  provisionResults: z.array(ProvisionResult).describe("Per provisioning command: exit code, duration and output tails (secrets redacted)."),
});

export const sandboxSpec = defineSpec({
  kind: "Sandbox",
  description:
    "A sandbox created from a template, optionally provisioned by commands. Sandboxes expire: after `timeoutSeconds` " +
    "seconds (service default 15) a sandbox is killed, or paused with `autoPause`. `pulumi refresh` then finds " +
    "an expired sandbox gone and the next `pulumi up` creates it again. With `forkFrom`, it is a fork of a running " +
    "sandbox (POST /sandboxes/{id}/fork), which takes its parent's settings.",
  inputs: SandboxInputs,
  outputs: SandboxOutputs,
  // The egress rules (and allowInternetAccess, which is denyOut 0.0.0.0/0) change in place: one PUT .../network.
  // `ports` makes no call: only the `urls` reported change (./ports.ts).
  // `pauseMode` makes no call either: it says what the next pause keeps.
  inPlace: ["timeoutSeconds", "provision", "network", "allowInternetAccess", "state", "pauseMode", "ports"],
  // How the output is shown, and what a failure does, change nothing already done: no re-run.
  localOnly: ["provision.logging", "provision.onFailure"],
  // Ingress is fixed at creation: the service has no call that changes it.
  replaceWithin: ["provision.triggers", "network.allowPublicTraffic", "network.maskRequestHost", "network.httpsPorts"],
  // Removing `timeoutSeconds` keeps the sandbox's deadline: the service has no "unset", and its default (15 s) would be a fuse.
  computed: ["timeoutSeconds", "state"],
  renamed: { timeout: "timeoutSeconds" },
  idOutputs: ["sandboxID"],
  secretInputs: ["envVars", "provision"],
  secretOutputs: ["envVars", "provision", "provisionResults", "envdAccessToken", "trafficAccessToken"],
  // The service reports the alias of the template `templateID` names; `urls` names the ports.
  secretFrom: { alias: ["templateID"], urls: ["ports"] },
  credentials: ["apiKey"],
  crossChecks: (inputs, unknown) => {
    const network = inputs.network as { allowPublicTraffic?: boolean; allowOut?: string[]; denyOut?: string[] } | undefined;
    const failures = forkChecks(inputs, unknown);
    if (network?.allowPublicTraffic === false && inputs.secure !== true) {
      failures.push({ path: "network.allowPublicTraffic", reason: "false requires secure: true (the service refuses it otherwise)" });
    }
    if ((network?.allowOut ?? []).some(isDomain) && !(network?.denyOut ?? []).includes(ALL_TRAFFIC)) {
      failures.push({ path: "network.allowOut", reason: `a domain name here needs "${ALL_TRAFFIC}" in denyOut, so that all other traffic is denied (the service refuses it otherwise)` });
    }
    failures.push(...lifecycleChecks(inputs, unknown));
    return failures;
  },
});
