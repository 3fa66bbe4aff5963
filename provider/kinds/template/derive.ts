/**
 * What `check` adds to a Template's inputs: `buildSteps`, from the Dockerfile and the context. Kept
 * apart from the handlers so a preview loads no client: it reads files and calls nothing.
 */
import type { DeriveOutcome } from "../handler-shape";
import { containsUnknown, UNKNOWN } from "../../spec";
import { keepPlan } from "./plans";
import { PlanError, planBuild, type StepInputs } from "./steps";

/**
 * `buildSteps` from the Dockerfile and the context, or why the service cannot build them. v1 builds
 * send the text as it is (the service's builder reads any Dockerfile): there a Dockerfile that does
 * not convert just has no steps to show.
 */
export function deriveTemplateSteps(inputs: Record<string, unknown>): DeriveOutcome {
  const { buildSteps: _stale, ...given } = inputs;
  if (["dockerfile", "context", "buildSystem", "startCmd", "readyCmd"].some((k) => containsUnknown(given[k]))) {
    return { inputs: { ...given, buildSteps: UNKNOWN } };
  }
  const v1 = given.buildSystem === "v1";
  try {
    const plan = planBuild(given as unknown as StepInputs, !v1);
    // The build goes on from this plan (./plans.ts): its files are not hashed again.
    if (!v1) keepPlan(given as unknown as StepInputs, plan);
    return { inputs: { ...given, buildSteps: plan.lines } };
  } catch (err) {
    if (!(err instanceof PlanError)) throw err;
    if (v1) return { inputs: given };
    return { failures: err.problems.map((p) => ({ property: "", reason: `${p.path}: ${p.reason}` })) };
  }
}
