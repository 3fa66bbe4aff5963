/**
 * What carries a Template's build plan from `check` to create and update. `check` plans the build
 * (the steps, each COPY step's files hash, and the files each hash covers, ./steps.ts); the engine
 * then calls create or update in the same provider process with the inputs check returned, whose
 * `buildSteps` name that plan. Kept here by what it was made from, it is found again by those inputs,
 * so the build context is not read and hashed a second time before the build's calls.
 */
import { contextDirOf, type PlannedBuild, type StepInputs } from "./steps";

/** The plans this process's `check` made, by what they were made from: one per Template and content. */
const PLANS = new Map<string, PlannedBuild>();

/** A plan's key: what planBuild reads of the inputs (the context as a directory), and the lines it made. */
function keyOf(inputs: StepInputs, lines: readonly string[]): string {
  const made = [inputs.dockerfile, contextDirOf(inputs.context) ?? null, inputs.startCmd ?? null, inputs.readyCmd ?? null, inputs.force === true];
  return JSON.stringify([...made, lines]);
}

/** Keeps the plan `check` made for these inputs (the latest one, when the same content is checked again). */
export function keepPlan(inputs: StepInputs, plan: PlannedBuild): void {
  PLANS.set(keyOf(inputs, plan.lines), plan);
}

/** The plan `check` made for inputs it returned (their `buildSteps`), or undefined when this process made none. */
export function checkedPlan(inputs: StepInputs & { buildSteps?: readonly string[] | undefined }): PlannedBuild | undefined {
  return inputs.buildSteps === undefined ? undefined : PLANS.get(keyOf(inputs, inputs.buildSteps));
}
