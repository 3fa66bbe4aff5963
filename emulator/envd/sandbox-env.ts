/**
 * The environment envd gives every process it starts (docs/service.md#envds-own-variables): envd's
 * own variables (infra: packages/envd/main.go, internal/host/mmds.go) over the create's `envVars`.
 * envd keeps its own as "internal" entries that the create's cannot replace (internal/utils/envvars.go,
 * ReplaceUserVars skips them without a word), so a create naming one is accepted and the key ignored;
 * a Start request's own envs still come last and win, as envd appends them after (process handler.go).
 */
import type { SandboxRuntime } from "../types";

/** envd's own variables: set for every process, and written under /run/e2b (run-files.ts). */
export function envdVariables(runtime: Pick<SandboxRuntime, "sandboxID" | "templateID">): Record<string, string> {
  return { E2B_SANDBOX: "true", E2B_SANDBOX_ID: runtime.sandboxID, E2B_TEMPLATE_ID: runtime.templateID };
}

/** The sandbox's environment as envd holds it (GET /envs): the create's envVars under envd's own. */
export function sandboxEnv(runtime: SandboxRuntime): Record<string, string> {
  return { ...runtime.envVars, ...envdVariables(runtime) };
}
