/**
 * What `check` adds to a Template's inputs: `buildSteps`, from the Dockerfile and the context. Kept
 * apart from the handlers so a preview loads no client: it reads files and calls nothing. What the
 * preview should know besides goes to the resource's log: what the Dockerfile's conversion ignored
 * (`RUN --mount`, `COPY --link`, HEALTHCHECK, …), and that the v1 build routes are gone from the
 * service's newest clients.
 */
import type { DeriveOutcome } from "../handler-shape";
import { containsUnknown, UNKNOWN } from "../../spec";
import { keepPlan } from "./plans";
import { PlanError, planBuild, type StepInputs } from "./steps";

/**
 * Said at the preview of every Template built through the v1 routes: the service's newest clients
 * (PyPI `e2b` 2.63, npm `e2b` 2.51) no longer call them (docs/service.md#template-routes-of-the-newest-sdks).
 */
export const V1_NOTICE =
  'buildSystem "v1": the legacy build routes (POST /templates, POST /templates/{templateID}) are gone from the ' +
  "service's newest clients (e2b 2.63 on PyPI, 2.51 on npm); they work only where the service still serves them, " +
  'as self-hosted deployments may. Drop `buildSystem: "v1"` to build through the current build system with the API key alone.';

type ResourceLogger = typeof import("../../runtime/log.js").resourceLogger;

/**
 * The resource's logger (which redacts what the resource hides), loaded with this module but not
 * imported by it: it reads the kinds' specs, and the kinds' registry imports this file, so a static
 * import would close a cycle. It is loaded long before the first `check`; where the runtime is not
 * there at all (the schema generator loads the specs alone), nothing is logged.
 */
let resourceLogger: ResourceLogger | undefined;
const loaded: Promise<ResourceLogger | undefined> = import("../../runtime/log.js").then(
  (log) => (resourceLogger = log.resourceLogger),
  () => undefined,
);

/** Lines this process has logged, by resource: `check` runs at each preview and again at `up`, and says each once. */
const said = new Set<string>();

function sayOnce(inputs: Record<string, unknown>, lines: readonly string[]): void {
  const key = typeof inputs.__resource === "string" ? inputs.__resource : "";
  const fresh = lines.filter((line) => !said.has(`${key}\u0000${line}`));
  if (fresh.length === 0) return;
  for (const line of fresh) said.add(`${key}\u0000${line}`);
  const say = (logger: ResourceLogger | undefined) => logger && fresh.forEach(logger("Template", inputs));
  if (resourceLogger) say(resourceLogger);
  else void loaded.then(say);
}

/**
 * `buildSteps` from the Dockerfile and the context, or why the service cannot build them. v1 builds
 * send the text as it is (the service's builder reads any Dockerfile): there a Dockerfile that does
 * not convert just has no steps to show.
 */
export function deriveTemplateSteps(inputs: Record<string, unknown>): DeriveOutcome {
  const { buildSteps: _stale, ...given } = inputs;
  const v1 = given.buildSystem === "v1";
  if (v1) sayOnce(given, [`warning: ${V1_NOTICE}`]);
  if (["dockerfile", "context", "buildSystem", "startCmd", "readyCmd"].some((k) => containsUnknown(given[k]))) {
    return { inputs: { ...given, buildSteps: UNKNOWN } };
  }
  try {
    const plan = planBuild(given as unknown as StepInputs, !v1);
    // The build goes on from this plan (./plans.ts): its files are not hashed again.
    if (!v1) keepPlan(given as unknown as StepInputs, plan);
    // v1 sends the text to a builder that reads it itself: the conversion's warnings are not about its build.
    if (!v1) sayOnce(given, plan.warnings.map((w) => `warning: ${w}`));
    return { inputs: { ...given, buildSteps: plan.lines } };
  } catch (err) {
    if (!(err instanceof PlanError)) throw err;
    if (v1) return { inputs: given };
    return { failures: err.problems.map((p) => ({ property: "", reason: `${p.path}: ${p.reason}` })) };
  }
}
