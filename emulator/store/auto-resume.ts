/**
 * Auto-resume: a sandbox created with `autoResume.enabled` that is paused resumes when a request
 * reaches its host, as the service's client proxy asks the API to (e2b-dev/infra:
 * packages/client-proxy/internal/proxy/proxy.go, packages/api/internal/handlers/proxy_grpc.go).
 * Only a pause that kept the memory resumes so; a files-only one, or one taken while the guest agent
 * did not answer, must be resumed explicitly. The
 * request must carry the credentials its port needs: a secure sandbox's envd access token on
 * envd's port, the traffic token on other ports when public traffic is off; without them the
 * answer is "denied" (the proxy's 403) and the sandbox stays paused. The resumed sandbox lives as
 * long as the timeout it was created with, at least 5 minutes and at most the plan's longest: the
 * create stores that as the sandbox's auto-resume timeout, and a later timeout update does not change
 * it (infra: packages/api/internal/handlers/sandbox_create.go, timeout_helper.go
 * calculateTimeoutSeconds and calculateAutoResumeTimeout, proxy_grpc.go; without one, the handler's
 * defaultProxyAutoResumeTimeout of 5 minutes; docs/service.md#pause-and-resume).
 * The resume takes a slot of the team's limit as any start does (the handler starts it through
 * startSandboxInternal): at the limit the API's 429 becomes a gRPC ResourceExhausted with the same
 * message, which the proxy answers as its own 429 (infra: packages/client-proxy/internal/proxy/proxy.go,
 * handlePausedSandbox; docs/service.md#sandbox-proxy), and the sandbox stays paused.
 */
import { sameSecret } from "../auth";
import { ApiError } from "../http";
import type { ResumeOutcome, ResumeRequest } from "../types";
import { MAX_TIMEOUT_MS, type SandboxRecord } from "./sandbox-records";

/** What auto-resume needs of the store (sandboxes.ts, which calls this). */
interface Resumable {
  all(): SandboxRecord[];
  connect(sandboxID: string, timeoutMs: number): Promise<unknown>;
}

/** How long an auto-resumed sandbox runs at least (and when it has no timeout of its own), in ms. */
export const AUTO_RESUME_TIMEOUT_MS = 5 * 60_000;

/** A new sandbox's auto-resume timeout from its create's timeout: within [5 minutes, the plan's longest]. */
export function autoResumeTimeoutFor(timeoutMs: number): number {
  return Math.max(Math.min(timeoutMs, MAX_TIMEOUT_MS), AUTO_RESUME_TIMEOUT_MS);
}

/** envd's port in every sandbox (as envd/gate.ts; repeated so the store does not import the in-sandbox side). */
const ENVD_PORT = 49983;

export async function resumeOnRequest(store: Resumable, sandboxID: string, request: ResumeRequest): Promise<ResumeOutcome> {
  const record = store.all().find((s) => s.sandboxID === sandboxID);
  // A pause taken while the guest agent did not answer resumes only cold, on an explicit request.
  if (!record || record.state !== "paused" || !record.autoResume || !record.memoryKept || record.envdUnresponsiveAtPause) return "not-resumed";
  const allowed =
    request.port === ENVD_PORT
      ? !record.secure || (record.envdAccessToken !== null && sameSecret(request.envdAccessToken, record.envdAccessToken))
      : record.trafficAccessToken === null || sameSecret(request.trafficAccessToken, record.trafficAccessToken);
  if (!allowed) return "denied";
  try {
    await store.connect(sandboxID, record.autoResumeTimeoutMs ?? AUTO_RESUME_TIMEOUT_MS);
  } catch (err) {
    if (err instanceof ApiError && err.status === 429) return { kind: "limit", message: err.message };
    throw err;
  }
  return "resumed";
}
