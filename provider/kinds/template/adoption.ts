/**
 * What a Template's create or update finds that an interrupted run left: a template under its
 * auto-named alias (create), a rebuild newer than the state knows (update). Either is adopted only
 * when its build is recorded as made from this run's inputs (./record.ts); otherwise the
 * caller builds again, and the resource's log says why.
 */
import type { TemplateBuild, TemplateWithBuilds } from "../../../sdk/schemas/templates";
import { platform } from "../../runtime/context";
import type { InputsOf } from "../../runtime/handlers";
import type { Logger } from "../../runtime/log";
import { autoNamed } from "../../runtime/outcome";
import { heldByAnother } from "../name-claims";
import { isClaimed, templateWithAlias } from "./claim";
import { buildInputNames, builtFrom } from "./record";
import type { BuildRef } from "./build-system";

type Inputs = InputsOf<"Template"> & { buildSteps?: string[] | undefined };

/** The newest build of a template, or the newest with a given status. */
export const latest = (t: TemplateWithBuilds, status?: string): TemplateBuild | undefined =>
  t.builds.filter((b) => status === undefined || b.status === status).sort((a, b) => a.createdAt.localeCompare(b.createdAt)).at(-1);

/** A template with this alias, and its latest build: what an interrupted run (or a lost answer) made. */
export async function findByAlias(alias: string): Promise<BuildRef | undefined> {
  const templateID = await templateWithAlias(alias);
  if (templateID === undefined) return undefined;
  const build = latest(await platform().templates.get(templateID));
  return build && { templateID, buildID: build.buildID, status: build.status };
}

/**
 * What a create finds under its alias. An auto-name is this resource's own unless another resource's
 * finished create claimed it (./claim.ts): an unclaimed template under it was made by an interrupted
 * run, and is adopted. A chosen alias is this resource's only when the template's
 * newest build is recorded (./record.ts) as made for this resource (its key and generation, which the
 * re-run of a killed `up` derives again) from these inputs: the killed run's first build. Any other
 * template holding it is refused: a v2 build request under it would build into that template (v1's
 * create is refused by the service itself).
 */
export async function existing(inputs: Inputs, log: Logger): Promise<BuildRef | undefined> {
  const alias = inputs.alias ?? ""; // `check` always sets it: the user's, or an auto-name
  const auto = autoNamed(inputs, "alias");
  const found = await findByAlias(alias);
  if (found && !auto && (await builtFrom(found, inputs))) {
    log(`adopting template ${found.templateID} (alias ${alias}): its build ${found.buildID} was started by an interrupted run of this resource, from these inputs`);
    return found;
  }
  if (found && !auto) {
    if (inputs.buildSystem === "v1") return undefined;
    throw new Error(
      `alias "${alias}" is already the template ${found.templateID} of your team, and a build under that name would replace its ` +
        "content. Choose another alias, or delete that template first.",
    );
  }
  if (found && (await isClaimed(found.templateID))) {
    // `check` chose this auto-name as held by no other resource's template: another run took it since.
    throw heldByAnother("alias", alias, "template", found.templateID);
  }
  if (found) log(`adopting template ${found.templateID} (alias ${alias}) made by an interrupted run`);
  return found;
}

/**
 * The template's newest build when it is newer than the one the state knows and has not ended: a
 * rebuild an interrupted `up` requested (and maybe started), which a new build would cancel. One that
 * ended is left alone and the update builds anew, as before builds were recorded.
 */
export async function newerInFlight(templateID: string, known: unknown): Promise<BuildRef | undefined> {
  const newest = latest(await platform().templates.get(templateID));
  if (!newest || newest.buildID === known || (newest.status !== "waiting" && newest.status !== "building")) return undefined;
  return { templateID, buildID: newest.buildID, status: newest.status };
}

/**
 * Whether a build an interrupted run started may be taken for this run's: recorded as made from
 * `inputs`. Taken otherwise, it would be recorded in state with inputs it was not made from, and no
 * later `up` or `refresh` would notice; so it is not, and the log says so and why.
 */
export async function adoptable(ref: BuildRef, inputs: Inputs, log: Logger): Promise<boolean> {
  if (await builtFrom(ref, inputs)) return true;
  log(
    `build ${ref.buildID} of template ${ref.templateID} is not recorded as made from these inputs (${buildInputNames(inputs)} changed ` +
      "since the interrupted run started it, or that run stopped before recording it): building the template again",
  );
  return false;
}
