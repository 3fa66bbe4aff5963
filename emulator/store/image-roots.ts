/**
 * The images template builds start from, each unpacked once: a FROM (or `fromImage`) is pulled
 * from its registry (../image/pull.ts), or from the mirror the emulator was given for that
 * registry, and its layers unpacked and provisioned (image-provision.ts) into
 * `<dataDir>/images/roots/<manifest digest>/`, the read-only lowest layer of every build and
 * sandbox of it. Blobs are cached by digest beside it, so a second template of the same image, or a
 * rebuild, asks the registry for the manifest only.
 *
 * How images are found is the emulator's `images` setting (options.ts):
 * - `registry` (the default): pulled; a pull that fails fails the build in the service's words
 *   (infra: packages/orchestrator/pkg/template/build/core/oci/oci.go, wrapImagePullError).
 * - `registry-or-host`: pulled; a pull that fails leaves the build on the host's system dirs, which
 *   its log says.
 * - `host`: never pulled; every build runs on the host's system dirs (the emulator's behaviour
 *   before images: offline use, and its own test suite).
 */
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { removeTreeSync } from "../confined/remove-tree";
import { randomHex } from "../ids";
import { pullImage, type PulledImage } from "../image/pull";
import { DOCKER_HUB, DOCKER_HUB_REGISTRY, parseReference } from "../image/reference";
import type { RegistryCredentials } from "../image/registry-auth";
import { ImageNotFoundError } from "../image/registry";
import { provisionImageRoot } from "./image-provision";

export type ImagesMode = "registry" | "registry-or-host" | "host";

export interface ImageSettings {
  mode: ImagesMode;
  /** A registry host (`docker.io` for Docker Hub) → the host to pull its images from instead. */
  mirrors: Readonly<Record<string, string>>;
  /** Registry hosts spoken to over plain http (loopback always is). */
  insecure: readonly string[];
}

/** Pulled from each image's own registry, over https unless on loopback. */
export const DEFAULT_IMAGE_SETTINGS: ImageSettings = { mode: "registry", mirrors: {}, insecure: [] };

/** An image ready to be a root: its unpacked, provisioned dir and its config's environment. */
export interface ImageRoot {
  reference: string;
  digest: string;
  /** Host dir of its files: never written after it is made. */
  dir: string;
  env: Record<string, string>;
  /** Whether this call unpacked it (false: an earlier pull had). */
  unpackedNow: boolean;
}

/** A pull that failed: `message` in the service's words, `detail` the emulator's own. */
export class ImagePullError extends Error {
  constructor(
    message: string,
    readonly detail: string,
  ) {
    super(message);
    this.name = "ImagePullError";
  }
}

export class ImageRoots {
  private readonly rootsDir: string;
  private readonly blobsDir: string;
  /** Pulls under way by reference, so two builds of one image unpack it once. */
  private readonly pulling = new Map<string, Promise<ImageRoot>>();

  constructor(
    dataDir: string,
    readonly settings: ImageSettings,
    /** Host id of the sandboxes' root; undefined when sandboxes are not isolated (files stay the emulator's). */
    private readonly idBase: number | undefined,
  ) {
    this.rootsDir = join(dataDir, "images", "roots");
    this.blobsDir = join(dataDir, "images", "blobs");
  }

  /**
   * The root of `reference`; rejects with ImagePullError. A malformed reference is refused before any
   * request. `credentials`: the template's `fromImageRegistry` of type `registry`.
   */
  root(reference: string, credentials?: RegistryCredentials, signal?: AbortSignal): Promise<ImageRoot> {
    const key = `${reference}\n${credentials?.username ?? ""}`;
    let pull = this.pulling.get(key);
    if (!pull) {
      pull = this.pull(reference, credentials, signal).finally(() => this.pulling.delete(key));
      this.pulling.set(key, pull);
    }
    return pull;
  }

  private async pull(reference: string, credentials: RegistryCredentials | undefined, signal: AbortSignal | undefined): Promise<ImageRoot> {
    let registry: string;
    try {
      registry = parseReference(reference).registry;
    } catch (err) {
      throw new ImagePullError(`invalid image reference '${reference}': ${(err as Error).message}`, (err as Error).message);
    }
    mkdirSync(this.rootsDir, { recursive: true });
    const staging = join(this.rootsDir, `.pull-${randomHex(8)}`);
    const dirOf = (digest: string) => join(this.rootsDir, digest.replace(/^sha256:/, ""));
    // Docker Hub is named `docker.io` in references and mirror settings; its API is another host.
    const mirror = this.settings.mirrors[registry] ?? (registry === DOCKER_HUB_REGISTRY ? this.settings.mirrors[DOCKER_HUB] : undefined);
    let pulled: PulledImage;
    try {
      pulled = await pullImage(reference, staging, {
        cacheDir: this.blobsDir,
        ...(mirror ? { registry: mirror } : {}),
        insecure: this.settings.insecure.includes(mirror ?? registry),
        ...(credentials ? { credentials } : {}),
        ...(signal ? { signal } : {}),
        ...(this.idBase !== undefined ? { idOffset: this.idBase } : {}),
        unpacked: (digest) => existsSync(dirOf(digest)),
      });
      const dir = dirOf(pulled.digest);
      if (pulled.unpackedNow) {
        await provisionImageRoot(staging, (owner) => (this.idBase === undefined ? undefined : this.idBase + (owner === "root" ? 0 : 1000)));
        // Another pull of the same digest may have won meanwhile: its dir stands, this one goes.
        if (existsSync(dir)) removeTreeSync(staging);
        else renameSync(staging, dir);
      }
      return { reference, digest: pulled.digest, dir, env: pulled.config.env, unpackedNow: pulled.unpackedNow };
    } catch (err) {
      if (existsSync(staging)) removeTreeSync(staging);
      throw serviceError(reference, err as Error);
    }
  }
}

/** The service's words for a failed pull (oci.go, wrapImagePullError), keeping the emulator's own detail. */
function serviceError(reference: string, err: Error): ImagePullError {
  if (err instanceof ImageNotFoundError) {
    const message = err.noRepository
      ? `repository '${reference}' not found: verify the image name is correct`
      : `image '${reference}' not found: the image or tag does not exist in the registry`;
    return new ImagePullError(message, err.message);
  }
  if (/access to .* denied/.test(err.message)) {
    return new ImagePullError(`access denied to '${reference}': authentication required or insufficient permissions`, err.message);
  }
  const status = /failed \(HTTP (\d+)\)/.exec(err.message);
  if (status) return new ImagePullError(`failed to pull image '${reference}': registry returned status code ${status[1]}`, err.message);
  return new ImagePullError(`failed to pull image '${reference}': unable to retrieve image from registry`, err.message);
}
