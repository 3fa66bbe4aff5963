/**
 * A FROM image made into a directory: the reference read, the manifest asked for this platform,
 * each blob taken from the cache or fetched (and verified) into it, the layers applied in order to
 * `target`, the config read. What a template build calls; the caller owns `target` and removes it
 * when this throws.
 */
import { readFile } from "node:fs/promises";
import { BlobCache } from "./cache";
import { readImageConfig, type ImageConfig } from "./config";
import { parseReference } from "./reference";
import { RegistryClient, type RegistryOptions } from "./registry";
import { unpackLayers, type UnpackOptions } from "./unpack";

export interface PullOptions extends RegistryOptions, UnpackOptions {
  /** Where blobs are kept between pulls. */
  cacheDir: string;
  /** The host asked instead of the reference's own registry (a mirror of it); the repository path stays. */
  registry?: string;
  /**
   * Whether `target` already holds this manifest's layers, unpacked by an earlier pull: then only
   * the config is read (from the cache) and nothing is unpacked.
   */
  unpacked?: (digest: string) => boolean;
}

export interface PulledImage {
  /** The manifest's digest (of this platform's manifest, not the index's). */
  digest: string;
  config: ImageConfig;
  /** False when `unpacked` said the layers were there already. */
  unpackedNow: boolean;
}

/** @throws ImageNotFoundError when the registry has no such image or tag; Error naming the image otherwise. */
export async function pullImage(reference: string, target: string, options: PullOptions): Promise<PulledImage> {
  const named = parseReference(reference);
  const ref = options.registry ? { ...named, registry: options.registry } : named;
  const client = new RegistryClient(ref, options);
  const cache = new BlobCache(options.cacheDir);
  try {
    const { digest, manifest } = await client.manifest();
    const fetchBlob = (d: (typeof manifest.layers)[number]) => cache.ensure(d, () => client.blob(d));
    const readConfig = async (path: string) => readImageConfig(ref.text, await readFile(path));
    if (options.unpacked?.(digest)) return { digest, config: await readConfig(await fetchBlob(manifest.config)), unpackedNow: false };
    const [configPath, ...layerPaths] = await allSettled([fetchBlob(manifest.config), ...manifest.layers.map(fetchBlob)]);
    const config = await readConfig(configPath!);
    await unpackLayers(
      ref.text,
      manifest.layers.map((l, i) => ({ path: layerPaths[i]!, digest: l.digest })),
      target,
      options,
    );
    return { digest, config, unpackedNow: true };
  } finally {
    await client.close();
  }
}

/** Like Promise.all, but waits for every fetch to end before failing, so that none still writes to the cache after the pull has failed. */
async function allSettled<T>(jobs: Promise<T>[]): Promise<T[]> {
  const results = await Promise.allSettled(jobs);
  const failed = results.find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<T>).value);
}
