/**
 * A Template's builds through the legacy build endpoints (`buildSystem: "v1"`, access token): the
 * first build by POST /templates, a new one by POST /templates/{id}, each with the Dockerfile's text.
 * The service starts such a build when it is requested, and uploads nothing: there is nothing to plan
 * or start, and any edit of the Dockerfile's text is a new build since the text is what is sent.
 */
import type { TemplateBuildRequest } from "../../../sdk/schemas/templates";
import { platform } from "../../runtime/context";
import type { InputsOf, SpecInputs } from "../../runtime/handlers";
import { createOnce } from "../../runtime/outcome";
import { wireBody, type WireMap } from "../../runtime/wire";
import type { BuildRef, BuildSystem } from "./build-system";
import { REBUILD_INPUTS } from "./spec";

export const BUILD_REQUEST: WireMap<SpecInputs<"Template">, TemplateBuildRequest> = {
  dockerfile: (dockerfile) => ({ dockerfile }),
  alias: (alias) => ({ alias }),
  teamID: (teamID) => ({ teamID }),
  startCmd: (startCmd) => ({ startCmd }),
  readyCmd: (readyCmd) => ({ readyCmd }),
  cpuCount: (cpuCount) => ({ cpuCount }),
  memoryMB: (memoryMB) => ({ memoryMB }),
  public: "not sent: one PATCH once the build is ready (setPublic)",
  buildTimeoutSeconds: "not sent: the provider's own deadline for waiting",
  context: "not sent: v1 builds upload no files (check refuses a context with v1)",
  buildSystem: "not sent: it chooses these endpoints",
  tags: "not sent: v1 builds have no tags (check refuses them with v1)",
  force: "not sent: v1 builds have no cache switch (check refuses it with v1)",
};

const REBUILD_ON: readonly string[] = [...REBUILD_INPUTS, "dockerfile"];

export function v1Build(inputs: InputsOf<"Template">): BuildSystem {
  const body = (): TemplateBuildRequest => ({ ...wireBody(BUILD_REQUEST, inputs), dockerfile: inputs.dockerfile });
  return {
    rebuildOn: REBUILD_ON,
    plan: () => {},
    first: (find) => createOnce<BuildRef>(() => platform().templates.create(body()), find),
    again: (templateID, started) =>
      createOnce(async () => ({ templateID, buildID: (await platform().templates.rebuild(templateID, body())).buildID }), started),
    start: async () => {},
    // v1 builds have no `buildSteps` to point into.
    stepLine: () => undefined,
  };
}
