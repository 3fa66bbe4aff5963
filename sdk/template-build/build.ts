/**
 * One build through the current build system, end to end: request it, hash each COPY step's files,
 * upload only the archives the service lacks, start it with its steps, wait for it. This is the
 * sequence of docs/service.md#build-sequence, in the order the service's SDK runs it.
 */
import { SandboxError } from "../errors";
import type { CallOptions } from "../transport/http";
import type { TemplateBuildInfo, BuildLogEntry } from "../schemas/templates";
import type { TemplateBuildStartV2, TemplateStep } from "../schemas/builds";
import type { Templates } from "../platform/templates";
import type { TemplateBuilds } from "./client";
import { listContextFiles, readDockerignore } from "./context-files";
import { contextArchive } from "./context-tar";
import { filesHash, hashEntries } from "./files-hash";

/** What to build. */
export interface BuildSpec {
  /** `[namespace/]alias[:tag]`; a rebuild under the same name keeps the templateID. */
  name: string;
  tags?: string[];
  cpuCount?: number;
  memoryMB?: number;
  /** The v2 start body; COPY steps need no `filesHash`, it is computed from `contextDir`. */
  build: TemplateBuildStartV2;
  /** Directory COPY sources are read from. */
  contextDir: string;
  onLog?: (entry: BuildLogEntry) => void;
  signal?: AbortSignal;
  /** Overall deadline of the wait, in milliseconds. */
  timeoutMs?: number;
}

/** What a finished build did. */
export interface BuildOutcome {
  templateID: string;
  buildID: string;
  /** Files hashes whose archives were uploaded (the rest the service already had). */
  uploaded: string[];
  info: TemplateBuildInfo;
}

/** The steps with each COPY step's `filesHash` filled in from `contextDir` (and its .dockerignore). */
export function withFilesHashes(steps: readonly TemplateStep[], contextDir: string): TemplateStep[] {
  const ignore = readDockerignore(contextDir);
  return steps.map((step) => {
    if (step.type.toUpperCase() !== "COPY") return step;
    const [src = "", dest = ""] = step.args ?? [];
    return { ...step, filesHash: filesHash(src, dest, contextDir, ignore) };
  });
}

/** What {@link uploadMissing} did: the files hashes it uploaded (the rest were present), and their bytes. */
export interface UploadOutcome {
  uploaded: string[];
  bytes: number;
}

/**
 * Uploads the archive of each COPY step (`steps` from withFilesHashes) the service lacks for the
 * template: one link call per distinct hash (`present` means cached), a PUT for the others.
 *
 * @throws SandboxError `conflict` when the files changed since they were hashed.
 */
export async function uploadMissing(
  builds: TemplateBuilds, templateID: string, steps: readonly TemplateStep[], contextDir: string, call: CallOptions = {},
): Promise<UploadOutcome> {
  const ignore = readDockerignore(contextDir);
  const out: UploadOutcome = { uploaded: [], bytes: 0 };
  const seen = new Set<string>();
  for (const step of steps) {
    if (step.filesHash === undefined || seen.has(step.filesHash)) continue;
    seen.add(step.filesHash);
    const link = await builds.fileUploadLink(templateID, step.filesHash, call);
    if (link.present || link.url === undefined) continue;
    const [src = "", dest = ""] = step.args ?? [];
    const entries = listContextFiles(src, contextDir, ignore);
    // The files may have changed since they were hashed: upload only what the hash names.
    if (hashEntries(src, dest, entries) !== step.filesHash) {
      throw new SandboxError({ code: "conflict", message: `COPY ${src}: the files changed while the build was being prepared; run it again` });
    }
    const archive = contextArchive(entries);
    await builds.upload(link.url, archive, call);
    out.uploaded.push(step.filesHash);
    out.bytes += archive.length;
  }
  return out;
}

/** Runs one build. @throws BuildFailedError when it ends in `error`; SandboxError otherwise. */
export async function runTemplateBuild(builds: TemplateBuilds, templates: Templates, spec: BuildSpec): Promise<BuildOutcome> {
  const call = spec.signal ? { signal: spec.signal } : {};
  const accepted = await builds.request({ name: spec.name, tags: spec.tags, cpuCount: spec.cpuCount, memoryMB: spec.memoryMB }, call);
  const { templateID, buildID } = accepted;
  const steps = withFilesHashes(spec.build.steps ?? [], spec.contextDir);
  const { uploaded } = await uploadMissing(builds, templateID, steps, spec.contextDir, call);
  await builds.start(templateID, buildID, { ...spec.build, steps }, call);
  const info = await templates.waitForBuild(templateID, buildID, {
    ...(spec.onLog ? { onLog: spec.onLog } : {}),
    ...(spec.signal ? { signal: spec.signal } : {}),
    ...(spec.timeoutMs !== undefined ? { timeoutMs: spec.timeoutMs } : {}),
  });
  return { templateID, buildID, uploaded, info };
}
