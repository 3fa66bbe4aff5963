/** TemplateTag create/read/update/delete. The map of calls and the replace rule are in ./spec.ts. */
import { isSandboxError, SandboxError } from "../../../sdk/errors";
import type { TemplateTag } from "../../../sdk/schemas/builds";
import { platform } from "../../runtime/context";
import { ignoreNotFound, isNotFound, type InputsOf, type ResourceHandlers, type StateOf } from "../../runtime/handlers";
import { resourceLogger } from "../../runtime/log";
import { madeFromDigest } from "../../runtime/made-from";
import { identityDigest } from "../identity";
import { engineGone } from "../../runtime/operation";
import { logsSent } from "../../runtime/engine-log";
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
 * the same key and generation (../identity.ts), and so the same mark. A plain digest of identity parts,
 * as the claim below: keyed by the API key, a mark read after a key rotation named nobody, and the tag a
 * renamed resource holds was refused as "set by another stack or by hand". Nothing in it is secret.
 */
function markOf(inputs: Inputs, templateID: string, buildID: string): string {
  return identityDigest("template-tag-mark", templateID, inputs.tag, buildID, inputs.__resource ?? "", inputs.__generation ?? 0);
}

/** The mark 0.3 wrote (an HMAC keyed by the API key): an interrupted run of 0.3 is still found by it. */
function legacyMarkOf(inputs: Inputs, templateID: string, buildID: string): string {
  const resource = { key: inputs.__resource ?? "", generation: inputs.__generation ?? 0 };
  return madeFromDigest("template-tag", { templateID, tag: inputs.tag, buildID, resource });
}

/** Whether a create of this resource marked the tag before its tag call (this version's mark, or 0.3's). */
async function markedByThis(inputs: Inputs, templateID: string, buildID: string): Promise<boolean> {
  return (await hasMark(templateID, markOf(inputs, templateID, buildID))) || (await hasMark(templateID, legacyMarkOf(inputs, templateID, buildID)));
}

/**
 * The claim a create leaves once it finished: "a finished create of the resource with this key and
 * generation set this tag on this build at `createdAt`". Two resources share a key (one renamed away
 * with `aliases` keeps the key of its first URN, and a new one declared under that name derives it
 * again), and so the mark above; the claim tells the one whose create finished, which a state records,
 * from a killed run's. The moment the tag was set is in it: a tag set again (deleted, then made by a
 * later resource of the key) is another setting, which an old claim does not name. A plain digest of
 * identity parts (../identity.ts), not keyed by the API key: after a key rotation a claim must still
 * read as one, or every claimed tag would look like a killed run's.
 */
function claimOf(inputs: Inputs, templateID: string, buildID: string, createdAt: string): string {
  return identityDigest("template-tag-claim", templateID, inputs.tag, buildID, createdAt, inputs.__resource ?? "", inputs.__generation ?? 0);
}

/**
 * The tag as a create finds it: absent (undefined: the create sets it), or this resource's own, set by
 * an interrupted run of it (a killed `up`, a create whose answer was lost): it points at the build the
 * target names and the mark says this resource's create pointed it there (its state: no tag call
 * needed), and no finished create claimed it. Any other tag is refused unless `takeOver`: someone else
 * set it (see the spec), and the service does not say who, so the message names what is known: its
 * build, that build's other tags, and when it was set. `mark` is the hash to write before the tag call
 * (none when the target names no build: the call then fails).
 */
async function found(inputs: Inputs, templateID: string): Promise<{ own?: State; mark?: string }> {
  const tags = await platform().builds.tags(templateID);
  const build = tags.find((t) => t.tag === inputs.target)?.buildID;
  const mark = build === undefined ? undefined : markOf(inputs, templateID, build);
  const held = tags.find((t) => t.tag === inputs.tag);
  if (!held || inputs.takeOver === true) return { ...(mark === undefined ? {} : { mark }) };
  if (build !== undefined && held.buildID === build && (await markedByThis(inputs, templateID, build))) {
    if (await hasMark(templateID, claimOf(inputs, templateID, build, held.createdAt))) throw new Error(sharedKey(inputs, build));
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

/** The refusal of a tag another resource under this one's first name set and recorded. */
function sharedKey(inputs: Inputs, build: string): string {
  return (
    `tag: "${inputs.tag}" of template ${inputs.template} (build ${build}) was set by another resource made under this one's first name, ` +
    "whose create finished (one renamed away from it with `aliases`, one moved to another stack with `pulumi state move`, or the one this " +
    "create replaces under `pulumi up --replace` or `pulumi state taint`): it is that resource's, and deleting either resource would remove " +
    "the other's tag. Choose another tag, or set takeOver: true to take it over."
  );
}

/**
 * Claims the tag as this finished create's (`claimOf`), at the end of the create. Not when the engine
 * went away during it (a killed `up` whose provider lives on): nothing records the tag, and the re-run
 * must take it. Not written, a new resource under this one's first name could take the tag for its
 * own after all, which the row says.
 */
async function claimTag(inputs: Inputs, state: State): Promise<void> {
  // The line goes to the engine first, and its answer is awaited: an engine killed as the tag call was
  // answered is noticed (its connection closed) before the claim, rather than just after it.
  resourceLogger("TemplateTag", inputs)(`tag "${inputs.tag}" of template ${inputs.template} points to build ${state.buildID}`);
  await logsSent();
  if (engineGone()) return;
  try {
    const held = (await platform().builds.tags(state.templateID)).find((t) => t.tag === inputs.tag && t.buildID === state.buildID);
    if (held) await writeMark(state.templateID, claimOf(inputs, state.templateID, state.buildID, held.createdAt));
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    resourceLogger("TemplateTag", inputs)(`warning: could not mark the tag as this resource's (${why}): a new resource later declared under this one's first name could take it for its own`);
  }
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
    if (!own) await leaveMark(inputs, templateID, mark);
    const outs = own ?? (await assign(inputs, templateID));
    await claimTag(inputs, outs);
    return { id: idOf(inputs), outs };
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
