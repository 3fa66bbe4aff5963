/** How a Template's state written by older versions is brought up to date (../../runtime/migrate.ts). */
import type { Migration } from "../kind";
import { PlanError, planBuild } from "./steps";

type Obj = Record<string, unknown>;

export const templateMigrations: readonly Migration[] = [
  {
    before: "0.3.0",
    why:
      "a template's build steps (`buildSteps`) are derived from its Dockerfile and diffed; state from before has none. " +
      "Its builds read no context, so the steps are the Dockerfile's alone: the same Dockerfile is then no change",
    up: (s) => (s.buildSteps !== undefined || typeof s.dockerfile !== "string" ? s : withSteps(s, s.dockerfile)),
  },
];

function withSteps(state: Obj, dockerfile: string): Obj {
  try {
    return { ...state, buildSteps: planBuild({ dockerfile }, false).lines };
  } catch (err) {
    if (err instanceof PlanError) return state; // a Dockerfile only the v1 builder reads: compared as text
    throw err;
  }
}
