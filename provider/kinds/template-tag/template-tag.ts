/** TemplateTag create/read/update/delete. The map of calls and the replace rule are in ./spec.ts. */
import { SandboxError } from "../../../sdk/errors";
import type { TemplateTag } from "../../../sdk/schemas/builds";
import { platform } from "../../runtime/context";
import { ignoreNotFound, isNotFound, type InputsOf, type ResourceHandlers, type StateOf } from "../../runtime/handlers";

type Inputs = InputsOf<"TemplateTag">;
type State = StateOf<"TemplateTag">;

/** The tag call's target: `alias:tag`; `default` is the alias alone (the service reads it so). */
const targetOf = (inputs: Inputs): string => (inputs.target === "default" ? inputs.template : `${inputs.template}:${inputs.target}`);

/** The resource's ID: the name sandboxes use for the tag. */
const idOf = (inputs: { template: string; tag: string }): string => `${inputs.template}:${inputs.tag}`;

/** The template's ID, by alias (`namespace/alias` matches its names). @throws not_found when there is none. */
async function templateIDOf(template: string): Promise<string> {
  const bare = template.slice(template.indexOf("/") + 1);
  const found = (await platform().templates.list()).find((t) => t.aliases.includes(bare) || t.names.includes(template));
  if (!found) throw new SandboxError({ code: "not_found", message: `template '${template}' not found: check the TemplateTag's \`template\` (a Template's alias)` });
  return found.templateID;
}

/**
 * Refuses a tag the template already has, unless `takeOver`: someone else set it (see the spec), and
 * the service does not say who, so the message names what is known: its build, that build's other
 * tags, and when it was set.
 */
async function refuseTaken(inputs: Inputs, templateID: string): Promise<void> {
  if (inputs.takeOver === true) return;
  const tags = await platform().builds.tags(templateID);
  const held = tags.find((t) => t.tag === inputs.tag);
  if (!held) return;
  const others = tags.filter((t) => t.buildID === held.buildID && t.tag !== inputs.tag).map((t) => t.tag);
  throw new Error(
    `tag: "${inputs.tag}" of template ${inputs.template} already exists, set by another stack or by hand (at ${held.createdAt}); it ` +
      `points to build ${held.buildID}${others.length > 0 ? ` (tagged ${others.join(", ")})` : ""}. This TemplateTag would move it ` +
      `to "${inputs.target}". Set takeOver: true to take the tag over (deleting this resource then removes it), or choose another tag.`,
  );
}

/** Points the tag at the target's build: one call, which sets rather than adds (repeatable). */
async function assign(inputs: Inputs, templateID?: string): Promise<State> {
  const { buildID } = await platform().builds.assignTags(targetOf(inputs), [inputs.tag]);
  return { ...inputs, templateID: templateID ?? (await templateIDOf(inputs.template)), buildID };
}

/**
 * What `target` the service's tags say: the state's when the target still names the tag's build,
 * else another tag of that build (`default` last), else the build ID (which no tag can equal).
 */
function targetNow(tags: readonly TemplateTag[], tag: string, build: string, known: string | undefined): string {
  const same = tags.filter((t) => t.buildID === build && t.tag !== tag).map((t) => t.tag);
  if (known !== undefined && same.includes(known)) return known;
  return same.find((t) => t !== "default") ?? same[0] ?? build;
}

export const templateTagHandlers: ResourceHandlers<"TemplateTag"> = {
  async create(inputs) {
    const templateID = await templateIDOf(inputs.template);
    await refuseTaken(inputs, templateID);
    return { id: idOf(inputs), outs: await assign(inputs, templateID) };
  },

  async read(id, olds) {
    // `TemplateTag.get` gives the ID alone: the template and tag are its two halves.
    const colon = id.lastIndexOf(":");
    const template = olds.template ?? id.slice(0, colon);
    const tag = olds.tag ?? id.slice(colon + 1);
    let tags: TemplateTag[];
    try {
      tags = await platform().builds.tags(olds.templateID ?? (await templateIDOf(template)));
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    const mine = tags.find((t) => t.tag === tag);
    if (!mine) return {};
    const templateID = olds.templateID ?? (await templateIDOf(template));
    const target = targetNow(tags, tag, mine.buildID, olds.target);
    return { id, props: { ...olds, template, tag, target, templateID, buildID: mine.buildID } };
  },

  async update(_id, olds, news) {
    return { outs: await assign(news, olds.template === news.template ? olds.templateID : undefined) };
  },

  async delete(_id, olds) {
    await ignoreNotFound(() => platform().builds.removeTags(olds.template, [olds.tag]));
  },
};
