/**
 * POST /sandboxes: the create rules of the real handler (infra: handlers/sandbox_create.go), in
 * its order: schema, template (or snapshot) and tag, timeout, autoPause options, network, volume mounts.
 * The network fields of the newest SDKs (httpsPorts, dnsServers, wildcard rule domains,
 * egressProxy.tls) are checked with the network (docs/service.md#sandbox-fields-of-the-newest-sdks).
 */
import { posix } from "node:path";
import { z } from "zod";
import { checkEgress } from "../egress";
import { ApiError, json, type Reply, type RequestContext } from "../http";
import { idempotencyKeyOf, keysOf } from "../idempotency";
import { checkMaskRequestHost } from "../mask-host";
import { checkDnsServers, checkEgressProxy, checkHttpsPorts, EgressProxySchema } from "../network-fields";
import { checkNetworkRules, normalizedRules } from "../network-rules";
import type { Stores } from "../store";
import { autoResumeTimeoutFor } from "../store/auto-resume";
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, type MountRecord, type NetworkConfig } from "../store/sandbox-records";
import { parseBody } from "../validate";
import { hostOwnerOf, resolveBase } from "./sandbox-base";
import { sandboxView } from "./sandbox-views";

/** The network config; null `allowPublicTraffic` (the newest SDKs' spec) means the project's default, true. */
const NetworkSchema = z.object({
  allowPublicTraffic: z.boolean().nullable().optional(),
  allowOut: z.array(z.string()).optional(),
  denyOut: z.array(z.string()).optional(),
  dnsServers: z.array(z.string()).optional(),
  egressProxy: EgressProxySchema,
  maskRequestHost: z.string().optional(),
  httpsPorts: z.array(z.int32()).optional(),
  rules: z.record(z.string(), z.array(z.unknown())).optional(),
});
type Network = z.infer<typeof NetworkSchema>;

const NewSandboxSchema = z.object({
  templateID: z.string(),
  timeout: z.int32().optional(),
  autoPause: z.boolean().optional(),
  autoPauseMemory: z.boolean().optional(),
  autoResume: z.object({ enabled: z.boolean() }).optional(),
  secure: z.boolean().optional(),
  allow_internet_access: z.boolean().optional(),
  network: NetworkSchema.optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  envVars: z.record(z.string(), z.string()).optional(),
  mcp: z.record(z.string(), z.unknown()).nullable().optional(),
  volumeMounts: z.array(z.object({ name: z.string(), path: z.string() })).optional(),
});
type NewSandbox = z.infer<typeof NewSandboxSchema>;

/** Time to live of POST /v2/sandboxes when the request names none, in milliseconds. */
const V2_DEFAULT_TIMEOUT_MS = 300_000;

/** Handles POST /sandboxes and POST /v2/sandboxes: 201 with the Sandbox, or the first rule broken as a 4xx. */
export async function createSandbox(stores: Stores, ctx: RequestContext, version: "v1" | "v2" = "v1"): Promise<Reply> {
  // Only the v2 operation declares an Idempotency-Key (docs/service.md#idempotent-creates); v1 ignores it.
  const key = version === "v2" ? idempotencyKeyOf(ctx.headers) : undefined;
  const raw = await ctx.json();
  if (key === undefined) return createFrom(stores, raw, version);
  return keysOf(stores).run(key, raw, () => createFrom(stores, raw, version));
}

async function createFrom(stores: Stores, raw: unknown, version: "v1" | "v2"): Promise<Reply> {
  const body = parseBody(NewSandboxSchema, raw);
  // v2 (what the official JS SDK calls): always secured, a 300 s default time to live.
  if (version === "v2") body.secure = true;
  const base = resolveBase(stores, body.templateID);
  const timeoutMs = checkTimeout(body.timeout, version === "v2" ? V2_DEFAULT_TIMEOUT_MS : DEFAULT_TIMEOUT_MS);
  checkLifecycle(body);
  // The network config's own rules come before the public-access one (sandbox_create.go).
  checkMaskRequestHost(body.network?.maskRequestHost);
  if (body.network?.allowPublicTraffic === false && body.secure !== true) {
    throw new ApiError(400, "You cannot create a sandbox without public access unless you enable secure envd access via 'secure' flag.");
  }
  checkEgress(body.network?.allowOut, body.network?.denyOut);
  checkDnsServers(body.network?.dnsServers);
  checkHttpsPorts(body.network?.httpsPorts);
  checkNetworkRules(body.network?.rules);
  checkEgressProxy(body.network?.egressProxy);
  const volumeMounts = resolveMounts(stores, body.volumeMounts ?? []);
  // The store takes the slot (a 429 when none is free) after every rule passed, as the service
  // reserves it when it starts the sandbox.
  return start(stores, base, body, timeoutMs, volumeMounts);
}

/** Makes the sandbox and fills its root. */
async function start(stores: Stores, base: ReturnType<typeof resolveBase>, body: NewSandbox, timeoutMs: number, volumeMounts: MountRecord[]): Promise<Reply> {
  const record = await stores.sandboxes.create({
    templateID: base.templateID,
    alias: base.alias,
    envdVersion: base.envdVersion,
    secure: body.secure === true,
    cpuCount: base.cpuCount,
    memoryMB: base.memoryMB,
    diskSizeMB: base.diskSizeMB,
    metadata: body.metadata ?? {},
    envVars: { ...base.envVars, ...body.envVars },
    network: storedNetwork(body.network),
    allowInternetAccess: body.allow_internet_access ?? null,
    autoPause: body.autoPause === true,
    autoResume: body.autoResume?.enabled === true,
    // The handler fixes it at creation for any `autoResume` given (store/auto-resume.ts).
    ...(body.autoResume ? { autoResumeTimeoutMs: autoResumeTimeoutFor(timeoutMs) } : {}),
    autoPauseMemory: body.autoPauseMemory !== false,
    volumeMounts,
    timeoutMs,
    defaults: base.defaults,
    ...(base.imageDir !== undefined ? { imageDir: base.imageDir } : {}),
  });
  base.spawned();
  await base.fill(record.rootDir, volumeMounts.map((m) => m.path), hostOwnerOf(stores, record.sandboxID));
  return json(201, sandboxView(record));
}

/**
 * The network config as the sandbox keeps it: rule domains lower-cased, a null `allowPublicTraffic`
 * as left out (the default); `egressProxy` never gets here (the emulator's team has none).
 */
function storedNetwork(network: Network | undefined): NetworkConfig | undefined {
  if (network === undefined) return undefined;
  const { egressProxy: _, allowPublicTraffic, rules, ...rest } = network;
  return {
    ...rest,
    ...(allowPublicTraffic === null || allowPublicTraffic === undefined ? {} : { allowPublicTraffic }),
    ...(rules === undefined ? {} : { rules: normalizedRules(rules) }),
  };
}

/** The API takes seconds; the store takes milliseconds. */
function checkTimeout(timeout: number | undefined, fallbackMs: number): number {
  if (timeout === undefined) return fallbackMs;
  if (timeout <= 0) throw new ApiError(400, "Timeout must be greater than 0");
  if (timeout * 1000 > MAX_TIMEOUT_MS) throw new ApiError(400, `Timeout cannot be greater than ${MAX_TIMEOUT_MS / 3_600_000} hours`);
  return timeout * 1000;
}

function checkLifecycle(body: NewSandbox): void {
  if (body.autoPauseMemory !== false) return;
  if (body.autoPause !== true) throw new ApiError(400, "autoPauseMemory can be false only when autoPause is true");
  if (body.autoResume?.enabled) throw new ApiError(400, "autoPauseMemory false cannot be combined with autoResume enabled");
}

/** Volume mounts: every problem is reported at once, numbered from 0, as the real handler does. */
function resolveMounts(stores: Stores, mounts: { name: string; path: string }[]): MountRecord[] {
  const problems: string[] = [];
  const used = new Set<string>();
  const resolved: MountRecord[] = [];
  mounts.forEach((mount, index) => {
    const volume = stores.volumes.byName(mount.name);
    const reason = !volume ? `volume '${mount.name}' not found` : mountPathProblem(mount.path, used);
    if (reason) return problems.push(`\t- volume mount #${index}: ${reason}`);
    used.add(mount.path);
    resolved.push({ name: mount.name, path: mount.path, hostDir: volume!.hostDir });
  });
  if (problems.length > 0) throw new ApiError(400, `invalid mounts:\n${problems.join("\n")}`);
  return resolved;
}

function mountPathProblem(path: string, used: Set<string>): string | undefined {
  if (path === "") return "path cannot be empty";
  if (!path.startsWith("/")) return "path must be absolute";
  if (clean(path) !== path) return "path must not contain any '.' or '..' components";
  if (used.has(path)) return `path '${path}' is already used`;
  return undefined;
}

/** Go's filepath.Clean for absolute POSIX paths: no `.`/`..`, no doubled or trailing slashes. */
function clean(path: string): string {
  const normal = posix.normalize(path);
  return normal.length > 1 ? normal.replace(/\/+$/, "") : normal;
}
