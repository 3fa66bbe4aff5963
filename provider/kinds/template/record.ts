/**
 * Build records: what a template's build was made from, kept by the service, so that a run which
 * finds a build an interrupted run started (by the template's alias, or as its newest build) adopts it
 * only when it was made from this run's inputs. Otherwise the program changed in between (a Dockerfile
 * edited after a killed `up`), and adopting would record the new inputs for a build of the old ones.
 *
 * The service says of a build its status and size, never what it built; tags reach a build only once
 * it is ready; templates have no metadata. What it keeps per template, and answers about while a build
 * runs, is its file cache (GET /templates/{id}/files/{hash}: `present`). So the record is an empty
 * archive uploaded there under a hash naming the build and the digest of its inputs (an HMAC,
 * ../../runtime/made-from.ts): present means "this build was made from these inputs, for this resource"
 * (its key and generation, ../identity.ts: what a re-run of a killed `up` derives again, unlike its
 * nonce). It is written as soon as the build exists, before it starts; a run killed before that leaves
 * no record, and its build is made again: the cost of an unrecorded build is one more build, never a
 * wrong one. Other kinds keep marks of their own there the same way ({@link writeMark}: a TemplateTag).
 */
import { contextArchive } from "../../../sdk/template-build";
import { isSandboxError } from "../../../sdk/errors";
import type { CallOptions } from "../../../sdk/transport/http";
import { platform } from "../../runtime/context";
import type { Logger } from "../../runtime/log";
import { madeFromDigest } from "../../runtime/made-from";
import { REBUILD_INPUTS } from "./spec";

/** A Template's checked inputs (plain: a test plays an interrupted run's record with them too). */
type Inputs = Record<string, unknown>;

interface Build {
  templateID: string;
  buildID: string;
}

/**
 * The inputs a build is made from: those whose change rebuilds (the Dockerfile's steps with v2, its
 * text with v1, which sends it), `force`, and the tags its request gives it.
 */
export function buildInputs(inputs: Inputs): Record<string, unknown> {
  const v1 = inputs.buildSystem === "v1";
  const rebuilding = Object.fromEntries(REBUILD_INPUTS.map((k) => [k, inputs[k]]));
  return { ...rebuilding, buildSystem: v1 ? "v1" : "v2", ...(v1 ? { dockerfile: inputs.dockerfile } : {}), force: inputs.force === true, tags: inputs.tags ?? [] };
}

/** Those inputs as a message names them. */
export function buildInputNames(inputs: Inputs): string {
  const names = Object.keys(buildInputs(inputs)).map((k) => (k === "buildSteps" ? "the Dockerfile's steps" : k));
  return `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}

/**
 * The record's hash: the build, its inputs, and the resource it was made for (key and generation), so
 * that a record proves a template is this resource's (./adoption.ts: a chosen alias an interrupted run
 * of this resource took), not only that its build fits these inputs.
 */
function recordHash(build: Build, inputs: Inputs): string {
  const resource = { key: inputs.__resource ?? "", generation: inputs.__generation ?? 0 };
  return madeFromDigest("template-build", { templateID: build.templateID, buildID: build.buildID, inputs: buildInputs(inputs), resource });
}

/**
 * Leaves a mark in a template's file cache: an empty archive under `hash` (64 hex digits, an HMAC:
 * ../../runtime/made-from.ts). Repeatable: a mark already present is not uploaded again.
 * @throws SandboxError when the service cannot be asked or the upload fails.
 */
export async function writeMark(templateID: string, hash: string): Promise<void> {
  const link = await platform().builds.fileUploadLink(templateID, hash);
  if (!link.present && link.url !== undefined) await platform().builds.upload(link.url, contextArchive([]));
}

/** Whether the template's file cache holds the mark `hash` ({@link writeMark}). */
export async function hasMark(templateID: string, hash: string, call?: CallOptions): Promise<boolean> {
  return (await platform().builds.fileUploadLink(templateID, hash, call)).present;
}

/**
 * Records that `build` is made from `inputs`. A record that cannot be written costs only a rebuild
 * after an interruption, so its failure is logged and the build goes on.
 */
export async function recordBuild(build: Build, inputs: Inputs, log: Logger): Promise<void> {
  try {
    await writeMark(build.templateID, recordHash(build, inputs));
  } catch (err) {
    if (!isSandboxError(err)) throw err;
    log(`could not record what build ${build.buildID} is made from (${err.message}): if this run is interrupted, the next one builds again`);
  }
}

/** Whether `build` was recorded as made from `inputs`, for the resource `inputs` are of. */
export async function builtFrom(build: Build, inputs: Inputs): Promise<boolean> {
  return hasMark(build.templateID, recordHash(build, inputs));
}
