/**
 * What `POST /sandboxes` starts a sandbox from, named by its `templateID`: a template's build, or a
 * snapshot (docs/service.md#sandbox-snapshots), which the service resolves through the same lookup
 * since a snapshot is a template of its own kind. A template wins a name both answer to.
 */
import { copyTree } from "../confined/copy-tree";
import { hostId, ownerId } from "../envd/isolation/layout";
import { ApiError } from "../http";
import type { Stores } from "../store";
import { fillSandboxRoot } from "../store/template-fill";
import type { TemplateResult } from "../store/template-tree";
import type { SandboxDefaults } from "../types";

/** The template-side fields of a new sandbox, and how its root gets the base's files. */
export interface SandboxBase {
  templateID: string;
  alias?: string | undefined;
  envdVersion: string;
  cpuCount: number;
  memoryMB: number;
  diskSizeMB: number;
  /** The environment the base gives; the request's variables win over it. */
  envVars: Record<string, string>;
  /** Host dir of the image's files under the sandbox's own, when the template pulled one. */
  imageDir?: string | undefined;
  defaults?: SandboxDefaults | undefined;
  /** Counts a sandbox started from the base (templates only). */
  spawned(): void;
  /** Writes the base's files into the new sandbox's root; `mounts`: its volume mount paths, left alone. */
  fill(rootDir: string, mounts: string[], hostOwner: (owner: string) => number | undefined): Promise<void>;
}

/** The base `ref` names; 404 with the service's messages when there is none. */
export function resolveBase(stores: Stores, ref: string): SandboxBase {
  const found = stores.templates.resolve(ref);
  const name = ref.trim().toLowerCase().replace(/:[^:/]*$/, "");
  if (!found) return snapshotBase(stores, ref, name);
  const build = stores.templates.buildFor(found.template, found.tag);
  if (!build) throw new ApiError(404, `tag '${found.tag}' does not exist for template '${name}'`);
  const result = stores.templates.resultOf(build);
  return {
    templateID: found.template.templateID,
    alias: found.template.aliases[0],
    envdVersion: build.envdVersion, cpuCount: build.cpuCount, memoryMB: build.memoryMB, diskSizeMB: build.diskSizeMB,
    // A template's ENV steps are the sandbox's environment.
    envVars: { ...result?.env },
    defaults: defaultsOf(result),
    imageDir: result?.image?.dir,
    spawned: () => stores.templates.recordSpawn(found.template),
    fill: async (rootDir, mounts, hostOwner) => {
      if (result) await fillSandboxRoot(rootDir, result, mounts, hostOwner);
    },
  };
}

/**
 * A snapshot's newest build of the tag: the settings of the sandbox it was taken of (its
 * environment lived in that sandbox's memory, which the snapshot keeps) and a copy of its files.
 */
function snapshotBase(stores: Stores, ref: string, name: string): SandboxBase {
  const found = stores.snapshots.resolve(ref);
  if (!found) throw new ApiError(404, `template '${name}' not found`);
  const { snapshot, build, tag } = found;
  if (!build) throw new ApiError(404, `tag '${tag}' does not exist for template '${name}'`);
  const { origin } = build;
  return {
    templateID: snapshot.templateID,
    alias: snapshot.alias,
    envdVersion: origin.envdVersion, cpuCount: origin.cpuCount, memoryMB: origin.memoryMB, diskSizeMB: origin.diskSizeMB,
    envVars: { ...origin.envVars },
    defaults: origin.defaults,
    imageDir: origin.imageDir,
    spawned: () => undefined,
    fill: (rootDir, mounts) => copyTree(build.filesDir, rootDir, mounts),
  };
}

/** envd's defaults from a v2 template's last USER and WORKDIR; v1 templates keep envd's own. */
function defaultsOf(result: TemplateResult | undefined): SandboxDefaults | undefined {
  return result ? { user: result.user, workdir: result.workdir } : undefined;
}

/** The host id standing for a template file's owner in an isolated sandbox (layout.ts ownerId). */
export function hostOwnerOf(stores: Stores, sandboxID: string): (owner: string) => number | undefined {
  const isolation = stores.sandboxes.running(sandboxID)?.isolation;
  return (owner) => (isolation ? hostId(isolation, ownerId(owner)) : undefined);
}
