/**
 * Wire shapes of sandboxes: Sandbox (create/connect), SandboxDetail (get), ListedSandbox (lists).
 * `pauseMode` and `envdUnresponsiveAtPause` are the newest SDKs' (docs/service.md#sandbox-fields-of-the-newest-sdks).
 */
import type { SandboxRecord } from "../store/sandbox-records";

/** Sandbox: the answer of create and connect. */
export function sandboxView(s: SandboxRecord): Record<string, unknown> {
  return {
    templateID: s.templateID,
    sandboxID: s.sandboxID,
    ...(s.alias === undefined ? {} : { alias: s.alias }),
    clientID: s.clientID,
    envdVersion: s.envdVersion,
    ...accessToken(s),
    trafficAccessToken: s.trafficAccessToken,
    domain: null,
  };
}

/** ListedSandbox: the items of GET /v2/sandboxes and GET /sandboxes. */
export function listedView(s: SandboxRecord): Record<string, unknown> {
  return {
    templateID: s.templateID,
    ...(s.alias === undefined ? {} : { alias: s.alias }),
    sandboxID: s.sandboxID,
    clientID: s.clientID,
    startedAt: s.startedAt.toISOString(),
    endAt: s.endAt.toISOString(),
    cpuCount: s.cpuCount,
    memoryMB: s.memoryMB,
    diskSizeMB: s.diskSizeMB,
    metadata: { ...s.metadata },
    state: s.state,
    envdVersion: s.envdVersion,
    volumeMounts: mounts(s),
    ...(s.state === "paused" && s.envdUnresponsiveAtPause ? { envdUnresponsiveAtPause: true } : {}),
  };
}

/** SandboxDetail: the answer of GET /sandboxes/{id}. envVars are never echoed, as in the real service. */
export function detailView(s: SandboxRecord): Record<string, unknown> {
  return {
    ...listedView(s),
    ...accessToken(s),
    allowInternetAccess: s.allowInternetAccess,
    domain: null,
    ...(s.network === undefined ? {} : { network: s.network }),
    lifecycle: { autoResume: s.autoResume, onTimeout: s.autoPause ? "pause" : "kill" },
    // What the latest pause saved: only for a paused sandbox whose pause has finished.
    ...(s.state === "paused" && s.pauseMode !== undefined ? { pauseMode: s.pauseMode } : {}),
  };
}

/** The spec types envdAccessToken as a plain string: a sandbox that is not secure has none, so no key. */
function accessToken(s: SandboxRecord): { envdAccessToken?: string } {
  return s.envdAccessToken === null ? {} : { envdAccessToken: s.envdAccessToken };
}

function mounts(s: SandboxRecord): { name: string; path: string }[] {
  return s.volumeMounts.map((m) => ({ name: m.name, path: m.path }));
}
