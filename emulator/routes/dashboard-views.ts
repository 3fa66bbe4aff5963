/**
 * Wire shapes of the dashboard API (infra spec/openapi-dashboard.yml): builds as the dashboard lists
 * them (its three statuses, not the platform's four), and templates in its own shapes.
 */
import type { BuildRecord, TemplateRecord } from "../store/template-records";
import { buildForTag } from "../store/template-tags";
import { isDefaultTemplate, templateNames } from "../store/templates";
import { templateView } from "./template-views";

/** BuildStatus of the dashboard API. */
export type DashboardBuildStatus = "building" | "failed" | "success";
export const DASHBOARD_BUILD_STATUSES: readonly DashboardBuildStatus[] = ["building", "failed", "success"];

/** What TemplateDetail says of a template without a ready build (spec: "or the zero UUID when none"). */
const ZERO_UUID = "00000000-0000-0000-0000-000000000000";

/** The platform's waiting and building are both "building" to the dashboard; ready is success, error failed. */
export function dashboardStatus(build: BuildRecord): DashboardBuildStatus {
  if (build.status === "ready") return "success";
  if (build.status === "error") return "failed";
  return "building";
}

/** The fields every build shape shares: status, its message (only when failed) and when it ended. */
function statusFields(build: BuildRecord): { status: DashboardBuildStatus; statusMessage: string | null; finishedAt: string | null } {
  const status = dashboardStatus(build);
  return {
    status,
    statusMessage: status === "failed" ? (build.reason?.message ?? "build failed") : null,
    finishedAt: build.finishedAt?.toISOString() ?? null,
  };
}

/** ListedBuild: `template` is the template's first alias, or its ID without one. */
export function listedBuildView(t: TemplateRecord, build: BuildRecord): Record<string, unknown> {
  return {
    id: build.buildID,
    template: t.aliases[0] ?? t.templateID,
    templateId: t.templateID,
    ...statusFields(build),
    createdAt: build.createdAt.toISOString(),
    cpuCount: build.cpuCount,
    memoryMB: build.memoryMB,
    diskSizeMB: build.diskSizeMB,
    envdVersion: build.envdVersion === "" ? null : build.envdVersion,
  };
}

/** BuildStatusItem. */
export function buildStatusView(build: BuildRecord): Record<string, unknown> {
  return { id: build.buildID, ...statusFields(build) };
}

/** BuildInfo: `names` are the template's names. */
export function buildInfoView(t: TemplateRecord, build: BuildRecord): Record<string, unknown> {
  return { names: templateNames(t), createdAt: build.createdAt.toISOString(), ...statusFields(build) };
}

/** DefaultTemplate: the build is the ready one tagged `default`; undefined when there is none. */
export function defaultTemplateView(t: TemplateRecord): Record<string, unknown> | undefined {
  const build = buildForTag(t, "default");
  if (!build) return undefined;
  return {
    id: t.templateID,
    aliases: t.aliases.map((alias) => ({ alias, namespace: null })),
    buildId: build.buildID,
    ramMb: build.memoryMB,
    vcpu: build.cpuCount,
    totalDiskSizeMb: build.diskSizeMB,
    envdVersion: build.envdVersion === "" ? null : build.envdVersion,
    createdAt: t.createdAt.toISOString(),
    public: t.public,
    buildCount: t.buildCount,
    spawnCount: t.spawnCount,
  };
}

/** TeamTemplate: the platform's Template without `buildStatus`, with `isDefault` always said. */
export function teamTemplateView(t: TemplateRecord, userID: string): Record<string, unknown> {
  const { buildStatus: _status, description, isDefault: _default, ...rest } = templateView(t, userID);
  return { ...rest, isDefault: isDefaultTemplate(t), defaultDescription: (description as string | undefined) ?? null };
}

/** TemplateDetail: resources of the ready build tagged `default`, null (and the zero UUID) without one. */
export function templateDetailView(t: TemplateRecord): Record<string, unknown> {
  const build = buildForTag(t, "default");
  return {
    templateID: t.templateID,
    buildID: build?.buildID ?? ZERO_UUID,
    cpuCount: build?.cpuCount ?? null,
    memoryMB: build?.memoryMB ?? null,
    diskSizeMB: build?.diskSizeMB ?? null,
    public: t.public,
    aliases: [...t.aliases],
    names: templateNames(t),
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
    lastSpawnedAt: t.lastSpawnedAt?.toISOString() ?? null,
    spawnCount: t.spawnCount,
    buildCount: t.buildCount,
    envdVersion: build && build.envdVersion !== "" ? build.envdVersion : null,
  };
}
