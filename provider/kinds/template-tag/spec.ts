/**
 * TemplateTag: a named tag of a template (`prod`) pointed at the build another tag names (`v5`), so a
 * stack rolls a tested build forward and back by editing one input, without a build.
 *   create  GET /templates (the template's ID), GET /templates/{templateID}/tags (a tag of that name
 *           someone else set is refused unless `takeOver`), the mark (GET /templates/{templateID}/
 *           files/{hash}, and its upload), POST /templates/tags {target: "alias:target", tags: [tag]}
 *   read    GET /templates/{templateID}/tags   (tag gone: gone; the tag on another build than the
 *           target's is drift of `target`, reported as a tag of that build, else its build ID)
 *   update  `target`: the same one POST /templates/tags (the tag moves; nothing is built)
 *   delete  DELETE /templates/tags {name: alias, tags: [tag]}   (404: already gone)
 * Replacement: `template`, `tag`. `takeOver` changes nothing remotely.
 *
 * A template's tags are one namespace (`alias:tag`), shared by every stack and person of the team,
 * and the service does not say who set a tag: one that exists before the create is someone else's
 * (a chosen name, like a Template's alias, is not adopted), and moving it would change what their
 * sandboxes start from. Except one this resource set: before its tag call, a create leaves a mark in
 * the template's file cache (../template/record.ts), an HMAC of the template, the tag, the build the
 * target names and the resource's key and generation (which the re-run of a killed `up` derives
 * again; not its nonce, which it does not). A create that finished claims the tag with a second mark
 * (naming also when the tag was set). A create that finds the tag on the build its target names, with
 * its mark and no claim, is the re-run of an interrupted create of this resource, and takes the tag
 * as set; with a claim, the tag is another resource's under the same key (one renamed away with
 * `aliases` keeps the key of its first name), and is refused.
 *
 * A resource rather than more Template inputs: the Template's `tags` follow its newest build, while
 * this tag follows a choice made after testing, and may live in another stack than the build's.
 */
import { z } from "zod";
import { defineSpec } from "../../spec";

const ALIAS = /^([a-z0-9_-]+\/)?[a-z0-9_-]+$/;
/** The service's tag rule: lowercase letters, digits, '.', '_', '-', and not a UUID. */
const TAG = /^[a-z0-9._-]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const tagName = (what: string) =>
  z.string({ error: `must be a string: ${what}` })
    .min(1, { error: "must not be empty" })
    .max(128, { error: "must be at most 128 characters" })
    .regex(TAG, { error: "may contain only lowercase letters, digits, '.', '_' and '-' (the service's tag rule)" })
    .refine((t) => !UUID.test(t), { error: "must not be a UUID (the service refuses UUID tags)" });

export const TemplateTagInputs = z.strictObject({
  template: z.string({ error: "must be a string: the template's alias (a Template's `alias` output)" })
    .max(128, { error: "must be at most 128 characters" })
    .regex(ALIAS, { error: "must be a template alias, optionally `namespace/alias`: lowercase letters, digits, '_' and '-', without a `:tag`" })
    .describe("Alias of the template whose tag this is (e.g. a Template's `alias` output). A change replaces the tag."),
  tag: tagName("the name of the tag this resource moves, e.g. \"prod\"")
    .refine((t) => t !== "default", { error: "cannot be `default`: the service moves it to each new build and refuses to delete it; name another tag (e.g. \"prod\")" })
    .describe("The tag this resource points (`prod`); sandboxes name it as `alias:prod`. Not `default`. A change replaces the tag (the old one is removed)."),
  target: tagName("the tag whose build this tag points to, e.g. \"v5\"")
    .describe("The tag whose build `tag` points to (`v5`, given to a build by a Template's `tags`; `default` is the newest build). A change moves the tag in place: one tag call, no build."),
  takeOver: z.boolean({ error: "must be true or false" }).optional()
    .describe(
      "Take over a tag of this name the template already has (set by another stack, or by hand). Default false: the " +
        "create refuses such a tag, naming the build it points to. Taken over, the tag is this resource's: it moves it, " +
        "and deleting the resource removes it. Changes nothing remotely.",
    ),
});

export const TemplateTagOutputs = z.object({
  templateID: z.string().describe("The template's ID."),
  buildID: z.string().describe("The build the tag points to."),
});

export const templateTagSpec = defineSpec({
  kind: "TemplateTag",
  description:
    "A tag of a template (`prod`) pointed at the build another tag names (`v5`). Changing `target` moves the tag " +
    "with one call and builds nothing, so a stack can roll a tested build forward and back; sandboxes created " +
    "from `alias:prod` start from the build it points to. A tag of that name that already exists is refused unless " +
    "`takeOver` is set, or an interrupted create of this resource set it (it is then taken as this resource's). " +
    "Deleting it removes the tag, never a build.",
  inputs: TemplateTagInputs,
  outputs: TemplateTagOutputs,
  inPlace: ["target"],
  localOnly: ["takeOver"],
  secretInputs: [],
  secretOutputs: [],
  // The build `target` names.
  secretFrom: { buildID: ["target"] },
  // The ID is `alias:tag`.
  idFrom: ["template", "tag"],
  // No `idOutputs`: its ID is `alias:tag`; its outputs name the template and build it points to, not itself.
  credentials: ["apiKey"],
  crossChecks: (inputs) =>
    inputs.tag !== undefined && inputs.tag === inputs.target
      ? [{ path: "target", reason: "names the tag itself; name the tag whose build it should point to (e.g. \"v5\")" }]
      : [],
});
