/**
 * Tags of a template (docs/service.md#template-tags): each names one build; `default` is what a bare
 * name means. Templates built only through v1 have no tags: their `default` is the last ready build.
 * Every assignment is also kept in the template's `tagLog`, newest last, for the tag history routes
 * (docs/service.md#template-routes-of-the-newest-sdks); deleting a tag forgets its history.
 */
import { isUUID, newUUID } from "../ids";
import type { BuildRecord, TagAssignment, TemplateRecord } from "./template-records";

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

/** Points each of `tags` at `buildID`, recording one assignment per tag. */
export function setTags(template: TemplateRecord, tags: readonly string[], buildID: string): void {
  const createdAt = new Date().toISOString();
  const log = tagLog(template);
  template.tags ??= {};
  for (const tag of tags) {
    template.tags[tag] = { buildID, createdAt };
    log.push({ assignmentID: newUUID(), tag, buildID, assignedAt: createdAt, seq: (log.at(-1)?.seq ?? 0) + 1 });
  }
}

/** Removes `tags` from the template, with their history. */
export function removeTags(template: TemplateRecord, tags: readonly string[]): void {
  const log = tagLog(template);
  for (const tag of tags) delete template.tags?.[tag];
  template.tagLog = log.filter((a) => !tags.includes(a.tag));
}

/** The wire list of GET /templates/{id}/tags, oldest first. */
export function tagList(template: TemplateRecord): { tag: string; buildID: string; createdAt: string }[] {
  return Object.entries(template.tags ?? {})
    .map(([tag, t]) => ({ tag, buildID: t.buildID, createdAt: t.createdAt }))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.tag.localeCompare(b.tag));
}

/** A ready assignment with the build it names. */
export interface ReadyAssignment extends TagAssignment {
  build: BuildRecord;
  /** `assignedAt` in milliseconds. */
  t: number;
}

/**
 * The assignments whose build is ready, newest first (by time, then by order of assignment), of
 * `tag` when given, else of every tag.
 */
export function readyAssignments(template: TemplateRecord, tag?: string): ReadyAssignment[] {
  const builds = new Map(template.builds.filter((b) => b.status === "ready").map((b) => [b.buildID, b]));
  const out: ReadyAssignment[] = [];
  for (const a of tagLog(template)) {
    const build = builds.get(a.buildID);
    if (build && (tag === undefined || a.tag === tag)) out.push({ ...a, build, t: Date.parse(a.assignedAt) });
  }
  return out.sort(newestFirst);
}

/** Orders assignments newest first: by time, then by order of assignment. */
export function newestFirst(a: { t: number; seq: number }, b: { t: number; seq: number }): number {
  return b.t - a.t || b.seq - a.seq;
}

/** The template's assignment log, derived from `tags` for a template that has none (older snapshots). */
function tagLog(template: TemplateRecord): TagAssignment[] {
  if (!template.tagLog) {
    const derived = tagList(template).map((t, i) => ({ assignmentID: newUUID(), tag: t.tag, buildID: t.buildID, assignedAt: t.createdAt, seq: i + 1 }));
    template.tagLog = derived;
  }
  return template.tagLog;
}
