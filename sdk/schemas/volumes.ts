/**
 * Wire schemas of the Volumes area (POST/GET/DELETE /volumes), in the API's casing.
 */
import { z } from "zod";

/** Body of POST /volumes. The service enforces `^[a-zA-Z0-9_-]+$` and unique names (400 otherwise). */
export const NewVolume = z.object({ name: z.string() });
export type NewVolume = z.infer<typeof NewVolume>;

/**
 * Answer of POST /volumes (201) and GET /volumes/{id}. `token` is a secret JWT for the volume's
 * content API; every GET mints a new one. `domain` is set only on custom clusters.
 */
export const VolumeAndToken = z.object({
  volumeID: z.string(),
  name: z.string(),
  token: z.string(),
  domain: z.string().nullish(),
});
export type VolumeAndToken = z.infer<typeof VolumeAndToken>;

/** One item of GET /volumes. */
export const Volume = z.object({ volumeID: z.string(), name: z.string() });
export type Volume = z.infer<typeof Volume>;

/**
 * VolumeEntryStat of the volume content API (E2B spec/openapi-volumecontent.yml): `mode` holds the
 * permission bits, times are RFC 3339, `target` is set for symlinks.
 */
export const VolumeEntryStat = z.object({
  name: z.string(),
  type: z.enum(["unknown", "file", "directory", "symlink"]),
  path: z.string(),
  size: z.number(),
  mode: z.number(),
  uid: z.number(),
  gid: z.number(),
  atime: z.string(),
  mtime: z.string(),
  ctime: z.string(),
  target: z.string().optional(),
});
export type VolumeEntryStat = z.infer<typeof VolumeEntryStat>;

/** Owner and permission bits of PATCH /volumecontent/{id}/path (and the uid/gid/mode query of uploads and mkdir). */
export const VolumeEntryMetadata = z.object({ uid: z.number().optional(), gid: z.number().optional(), mode: z.number().optional() });
export type VolumeEntryMetadata = z.infer<typeof VolumeEntryMetadata>;
