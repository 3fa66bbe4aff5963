/**
 * Public entry of `pulumi-sandbox/sdk`: the typed client of the sandbox service.
 * Branch on `err.code` (and `err.reason`) of a SandboxError (see errors.ts), never on `instanceof`.
 * The public surface is the clients, the errors, the config and the wire schemas; the retry and wait
 * machinery behind them is not part of it.
 */
// First: on a Node.js too old for the dependencies, fail here with the fix, not deep inside them.
import "./node-version";
export * from "./errors";
export * from "./config";
export { USER_AGENT } from "./transport/user-agent";
export { HttpClient, labelOf, type AuthScheme, type CallOptions, type HttpMethod, type Operation, type RawResponse } from "./transport/http";
export * from "./schemas/common";
export * from "./schemas/sandboxes";
export * from "./schemas/templates";
export * from "./schemas/builds";
export * from "./schemas/volumes";
export * from "./schemas/snapshots";
export * from "./schemas/secrets";
export * from "./schemas/events";
export { parseWire } from "./schemas/parse";
export { Sandboxes, encodeMetadata, type ListSandboxesQuery, type SandboxPage } from "./platform/sandboxes";
export { Templates, BuildFailedError, DEFAULT_BUILD_TIMEOUT_MS, type WaitForBuildOptions } from "./platform/templates";
export { Volumes } from "./platform/volumes";
export { Snapshots, type ListSnapshotsQuery, type SnapshotPage } from "./platform/snapshots";
export { Secrets, type SecretPage } from "./platform/secrets";
export { Webhooks } from "./platform/webhooks";
export { LifecycleEvents, MAX_EVENTS_LIMIT, type LifecycleEventsQuery } from "./platform/lifecycle-events";
export { webhookSignature, verifyWebhookSignature, WEBHOOK_HEADERS, WEBHOOK_SIGNATURE_VERSION } from "./platform/webhook-signature";
export { VolumeContent, contentBaseUrl, type WriteOptions as VolumeWriteOptions } from "./volume-content/client";
export * from "./template-build";
export { PlatformClient } from "./platform/client";

// ---- in-sandbox API (in-sandbox/, transport/rpc.ts): export lines go below ----
export { SandboxRpc, toRpc, KEEPALIVE_PING_INTERVAL_S, type SandboxTarget, type RpcCallOptions } from "./transport/rpc";
export { toSandboxError, type RpcErrorContext } from "./transport/rpc-errors";
export { ENVD_PORT, sandboxAddress, basicUserAuth, type SandboxAddress } from "./transport/sandbox-host";
export {
  ProcessClient,
  DEFAULT_COMMAND_TIMEOUT_MS,
  type ProcessEvent,
  type ProcessSelector,
  type ProcessSignal,
  type ProcessInfo,
  type PtySize,
  type StartOptions,
} from "./in-sandbox/process";
export { CommandError, throwIfFailed, type RunOptions, type RunResult, type WaitOptions } from "./in-sandbox/process-run";
export { FilesystemClient, type EntryInfo, type EntryType, type ListDirOptions } from "./in-sandbox/filesystem";
export { TailBuffer, DEFAULT_TAIL_BYTES } from "./in-sandbox/tail";
// ---- end of in-sandbox API exports ----
