/**
 * What the in-sandbox side sees of a running sandbox (types.ts SandboxRuntime), made from its record
 * by the store, the emulator's SandboxDirectory (./sandboxes.ts).
 */
import type { Isolation } from "../envd/isolation/mode";
import type { SandboxRuntime } from "../types";
import { HOME_PATH } from "./sandbox-fs";
import type { SandboxRecord } from "./sandbox-records";

/** A running sandbox's runtime view: copies, so the in-sandbox side cannot change the record. */
export function runtimeOf(record: SandboxRecord, isolation: Isolation): SandboxRuntime {
  return {
    sandboxID: record.sandboxID,
    templateID: record.templateID,
    secure: record.secure,
    envdAccessToken: record.envdAccessToken,
    trafficAccessToken: record.trafficAccessToken,
    maskRequestHost: record.network?.maskRequestHost,
    httpsPorts: record.network?.httpsPorts,
    rootDir: record.rootDir,
    homePath: HOME_PATH,
    isolation,
    volumeMounts: record.volumeMounts.map((m) => ({ ...m })),
    envVars: { ...record.envVars },
    defaults: record.defaults,
    ...(record.imageDir !== undefined ? { imageDir: record.imageDir } : {}),
    egress: { allowOut: [...(record.network?.allowOut ?? [])], denyOut: [...(record.network?.denyOut ?? [])], internet: record.allowInternetAccess !== false },
  };
}
