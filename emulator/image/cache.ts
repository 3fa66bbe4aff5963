/**
 * Blobs kept on disk by digest (`<dir>/sha256/<hex>`), so that a second pull of an image, or a pull
 * of another image sharing its base layers, fetches no layer again. A blob is written to a temp file
 * of its own, checked against its digest as it streams, then renamed into place: a reader never sees
 * a partial blob, and two pulls of the same blob (in this process or another) each rename a whole
 * verified file over the same name. A kept blob is hashed again before it is used, since a disk may
 * lose or a hand may change bytes; a bad one is dropped and fetched again.
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Descriptor } from "./manifest";

/** Fetches of the same blob path in this process share one download. */
const inFlight = new Map<string, Promise<string>>();

export class BlobCache {
  constructor(readonly dir: string) {}

  pathOf(digest: string): string {
    return join(this.dir, "sha256", digest.replace(/^sha256:/, ""));
  }

  /**
   * The path of the blob's verified file, fetched with `fetch` unless a good copy is kept.
   * `fetch` must return a stream that fails when the bytes do not match (RegistryClient.blob).
   */
  async ensure(desc: Descriptor, fetch: () => Promise<Readable>): Promise<string> {
    const path = this.pathOf(desc.digest);
    const pending = inFlight.get(path);
    if (pending) return pending;
    const job = this.load(desc, path, fetch).finally(() => inFlight.delete(path));
    inFlight.set(path, job);
    return job;
  }

  private async load(desc: Descriptor, path: string, fetch: () => Promise<Readable>): Promise<string> {
    if (await intact(path, desc)) return path;
    await mkdir(join(this.dir, "sha256"), { recursive: true });
    const tmp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      await pipeline(await fetch(), createWriteStream(tmp, { flags: "wx" }));
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    return path;
  }
}

/** Whether the kept file is the blob; a wrong one is removed so that it is fetched again. */
async function intact(path: string, desc: Descriptor): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return false;
  if (info.isFile() && info.size === desc.size) {
    const hash = createHash("sha256");
    await pipeline(createReadStream(path), hash);
    if (`sha256:${hash.digest("hex")}` === desc.digest) return true;
  }
  await rm(path, { force: true, recursive: true });
  return false;
}
