/** The build systems a Template's `buildSystem` input chooses between, by that input's values. */
import type { InputsOf } from "../../runtime/handlers";
import type { Logger } from "../../runtime/log";
import type { BuildSystem } from "./build-system";
import type { BuildSystem as BuildSystemName } from "./spec";
import { v1Build } from "./template-v1";
import { v2Build } from "./template-v2";

const SYSTEMS: Record<BuildSystemName, (inputs: InputsOf<"Template">, log: Logger) => BuildSystem> = { v2: v2Build, v1: v1Build };

/** The build system of these inputs (`buildSystem` defaults to v2 at check). */
export function buildSystemFor(inputs: InputsOf<"Template">, log: Logger): BuildSystem {
  return SYSTEMS[inputs.buildSystem](inputs, log);
}
