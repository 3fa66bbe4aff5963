/**
 * A build's files, from plan to upload (docs/service.md#build-sequence, steps 2 and 3 need them):
 * each COPY step's files hash, and the upload of the archives the service lacks. The files are
 * listed and hashed once, when the build is planned (./copy-files.ts); an upload reads them once
 * more, for the bytes it sends, and sends them only when they are still the ones hashed.
 */
import { SandboxError } from "../errors";
import type { CallOptions } from "../transport/http";
import type { TemplateStep } from "../schemas/builds";
import type { TemplateBuilds } from "./client";
import { readDockerignore } from "./context-files";
import { contextArchive } from "./context-tar";
import { changedEntry, copyFiles, describeChange, type CopyFiles } from "./copy-files";
import { hashEntries } from "./files-hash";

/** A build's COPY files, planned: the steps with each COPY step's `filesHash`, and each step's files. */
export interface PlannedFiles {
  steps: TemplateStep[];
  /** One per COPY step, in step order. */
  copies: CopyFiles[];
}

/** Plans the files of `steps` over `contextDir` (and its .dockerignore): each COPY step listed and hashed once. */
export function planFiles(steps: readonly TemplateStep[], contextDir: string): PlannedFiles {
  const ignore = readDockerignore(contextDir);
  const copies: CopyFiles[] = [];
  const planned = steps.map((step) => {
    if (step.type.toUpperCase() !== "COPY") return step;
    const [src = "", dest = ""] = step.args ?? [];
    const files = copyFiles(src, dest, contextDir, ignore);
    copies.push(files);
    return { ...step, filesHash: files.filesHash };
  });
  return { steps: planned, copies };
}

/** The steps with each COPY step's `filesHash` filled in from `contextDir` (and its .dockerignore). */
export function withFilesHashes(steps: readonly TemplateStep[], contextDir: string): TemplateStep[] {
  return planFiles(steps, contextDir).steps;
}

/** What {@link uploadMissing} did: the files hashes it uploaded (the rest were present), and their bytes. */
export interface UploadOutcome {
  uploaded: string[];
  bytes: number;
}

/**
 * Uploads the archive of each planned COPY step the service lacks for the template: one link call per
 * distinct hash (`present` means cached), a PUT for the others.
 *
 * @throws SandboxError `conflict` when the files changed since they were planned (naming the first
 * one that did, when its listing tells).
 */
export async function uploadMissing(builds: TemplateBuilds, templateID: string, copies: readonly CopyFiles[], call: CallOptions = {}): Promise<UploadOutcome> {
  const out: UploadOutcome = { uploaded: [], bytes: 0 };
  const seen = new Set<string>();
  for (const files of copies) {
    if (seen.has(files.filesHash)) continue;
    seen.add(files.filesHash);
    const link = await builds.fileUploadLink(templateID, files.filesHash, call);
    if (link.present || link.url === undefined) continue;
    const archive = contextArchive(files.entries, true, readAsPlanned(files));
    await builds.upload(link.url, archive, call);
    out.uploaded.push(files.filesHash);
    out.bytes += archive.length;
  }
  return out;
}

/** The bytes of the step's files, read once: hashed again as they are read, and refused unless they are the planned ones. */
function readAsPlanned(files: CopyFiles): Map<string, Buffer> {
  const read = new Map<string, Buffer>();
  let hash: string | undefined;
  try {
    hash = hashEntries(files.src, files.dest, files.entries, (path, bytes) => read.set(path, bytes));
  } catch {
    // A planned file that is gone or unreadable: named below from the listing.
  }
  if (hash === files.filesHash) return read;
  const changed = changedEntry(files);
  throw new SandboxError({
    code: "conflict",
    message: `COPY ${files.src}: ${changed ? describeChange(changed, files.contextDir) : "a file's content changed (not its size or modification time)"} ` +
      `since its files were hashed (files ${files.filesHash}); nothing of it was uploaded. Plan the build again to upload the files as they are now.`,
  });
}
