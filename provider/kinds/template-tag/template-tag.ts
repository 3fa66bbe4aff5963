/** TemplateTag create/read/update/delete. The map of calls and the replace rule are in ./spec.ts. */
import { isSandboxError, SandboxError } from "../../../sdk/errors";
import type { TemplateTag } from "../../../sdk/schemas/builds";
import { platform } from "../../runtime/context";
import { ignoreNotFound, isNotFound, type InputsOf, type ResourceHandlers, type StateOf } from "../../runtime/handlers";
import { resourceLogger } from "../../runtime/log";
import { madeFromDigest } from "../../runtime/made-from";
import { hasMark, writeMark } from "../template/record";

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
 * The mark a create leaves in the template's file cache (../template/record.ts) before its tag call:
 * "the resource with this key and generation pointed this tag at this build". Key and generation, not
 * the nonce: the re-run of a killed `up` checks the resource anew and so has another nonce, but derives
 * the same key and generation (../identity.ts), and so the same mark.
 */
function markOf(inputs: Inputs, templateID: string, buildID: string): string {
  const resource = { key: inputs.__resource ?? "", generation: inputs.__generation ?? 0 };
  return madeFromDigest("template-tag", { templateID, tag: inputs.tag, buildID, resource });
}

/**
 * The tag as a create finds it: absent (undefined: the create sets it), or this resource's own, set by
 * an interrupted run of it (a killed `up`, a create whose answer was lost): it points at the build the
 * target names and the mark says this resource's create pointed it there (its state: no tag call
 * needed). Any other tag is refused unless `takeOver`: someone else set it (see the spec), and the
 * service does not say who, so the message names what is known: its build, that build's other tags,
 * and when it was set. `mark` is the hash to write before the tag call (none when the target names no
 * build: the call then fails).
 */
async function found(inputs: Inputs, templateID: string): Promise<{ own?: State; mark?: string }> {
  const tags = await platform().builds.tags(templateID);
  const build = tags.find((t) => t.tag === inputs.target)?.buildID;
  const mark = build === undefined ? undefined : markOf(inputs, templateID, build);
  const held = tags.find((t) => t.tag === inputs.tag);
  if (!held || inputs.takeOver === true) return { ...(mark === undefined ? {} : { mark }) };
  if (mark !== undefined && held.buildID === build && (await hasMark(templateID, mark))) {
    resourceLogger("TemplateTag", inputs)(
      `tag "${inputs.tag}" of template ${inputs.template} already points to build ${build}, as an interrupted run of this resource set it: taking it as its own`,
    );
    return { own: { ...inputs, templateID, buildID: build } };
  }
  const others = tags.filter((t) => t.buildID === held.buildID && t.tag !== inputs.tag).map((t) => t.tag);
  throw new Error(
    `tag: "${inputs.tag}" of template ${inputs.template} already exists, set by another stack or by hand (at ${held.createdAt}); it ` +
      `points to build ${held.buildID}${others.length > 0 ? ` (tagged ${others.join(", ")})` : ""}. This TemplateTag would move it ` +
      `to "${inputs.target}". Set takeOver: true to take the tag over (deleting this resource then removes it), or choose another tag.`,
  );
}

/**
 * Writes the mark before the tag call. One that cannot be written costs only a refusal after an
 * interruption (as before marks), so its failure is logged and the create goes on.
 */
async function leaveMark(inputs: Inputs, templateID: string, mark: string | undefined): Promise<void> {
  if (mark === undefined) return;
  try {
    await writeMark(templateID, mark);
  } catch (err) {
    if (!isSandboxError(err)) throw err;
    resourceLogger("TemplateTag", inputs)(
      `could not mark the tag as this resource's (${err.message}): if this run is interrupted, the next one finds the tag and refuses it (takeOver: true claims it)`,
    );
  }
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
    const { own, mark } = await found(inputs, templateID);
    if (own) return { id: idOf(inputs), outs: own };
    await leaveMark(inputs, templateID, mark);
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
