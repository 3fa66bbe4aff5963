/**
 * Tags of a template (docs/service.md#template-tags): each names one build; `default` is what a bare
 * name means. Templates built only through v1 have no tags: their `default` is the last ready build.
 */
import { isUUID } from "../ids";
import type { BuildRecord, TemplateRecord } from "./template-records";

/** The ready build `tag` names, or undefined. */
export function buildForTag(template: TemplateRecord, tag: string): BuildRecord | undefined {
  const tagged = template.tags?.[tag];
  if (tagged) return template.builds.find((b) => b.buildID === tagged.buildID && b.status === "ready");
  if (tag !== "default" || template.tags?.default) return undefined;
  return template.builds.findLast((b) => b.status === "ready");
}

/**
 * The ready build a tag assignment's target names: by tag, or, when the "tag" is a UUID, the build
 * with that ID (infra: packages/db/queries/templates/get_template_with_build_by_tag.sql matches
 * `tag = $tag OR build_id = try_cast_uuid($tag)`).
 */
export function buildForTarget(template: TemplateRecord, tag: string): BuildRecord | undefined {
  const byTag = buildForTag(template, tag);
  if (byTag || !isUUID(tag)) return byTag;
  return template.builds.find((b) => b.buildID === tag.toLowerCase() && b.status === "ready");
}

/** Points each of `tags` at `buildID`. */
export function setTags(template: TemplateRecord, tags: readonly string[], buildID: string): void {
  const createdAt = new Date().toISOString();
  template.tags ??= {};
  for (const tag of tags) template.tags[tag] = { buildID, createdAt };
}

/** The wire list of GET /templates/{id}/tags, oldest first. */
export function tagList(template: TemplateRecord): { tag: string; buildID: string; createdAt: string }[] {
  return Object.entries(template.tags ?? {})
    .map(([tag, t]) => ({ tag, buildID: t.buildID, createdAt: t.createdAt }))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.tag.localeCompare(b.tag));
}
