/**
 * The build file cache behind GET /templates/{id}/files/{hash}: archives kept per template and
 * files hash (content-addressed, as the service keeps them in its bucket), and one-time upload URLs
 * of the emulator's own that stand for the object store's presigned URLs.
 */
import { randomBytes } from "node:crypto";

/** Largest archive one upload may carry, in bytes (the object store's limit stands here). */
export const MAX_UPLOAD_BYTES = 256 * 1024 * 1024;
/** Path prefix of upload URLs; outside the service's spec, like the bucket's URLs. */
export const UPLOAD_PATH = "/_uploads";
/** How long an upload URL stays valid, in milliseconds (the service signs them for an hour). */
const UPLOAD_TTL_MS = 3_600_000;

export class BuildFileStore {
  private readonly archives = new Map<string, Buffer>();
  private readonly pending = new Map<string, { key: string; expires: number }>();

  /** Whether the archive of `hash` was uploaded for the template. */
  has(templateID: string, hash: string): boolean {
    return this.archives.has(key(templateID, hash));
  }

  get(templateID: string, hash: string): Buffer | undefined {
    return this.archives.get(key(templateID, hash));
  }

  /** A fresh upload path (`/_uploads/<token>`) for the archive of `hash`. */
  uploadPath(templateID: string, hash: string): string {
    const token = randomBytes(18).toString("base64url");
    this.pending.set(token, { key: key(templateID, hash), expires: Date.now() + UPLOAD_TTL_MS });
    return `${UPLOAD_PATH}/${token}`;
  }

  /** Stores an upload; false when the token is unknown or expired. A repeated PUT overwrites. */
  put(token: string, archive: Buffer): boolean {
    const target = this.pending.get(token);
    if (!target || target.expires < Date.now()) return false;
    this.archives.set(target.key, archive);
    return true;
  }

  /** Whether a token may be uploaded to (checked before reading the body). */
  accepts(token: string): boolean {
    const target = this.pending.get(token);
    return target !== undefined && target.expires >= Date.now();
  }

  /** Forgets a template's archives (it was deleted). */
  dropTemplate(templateID: string): void {
    for (const k of this.archives.keys()) if (k.startsWith(`${templateID}/`)) this.archives.delete(k);
  }
}

function key(templateID: string, hash: string): string {
  return `${templateID}/${hash}`;
}
