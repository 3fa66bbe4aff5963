/**
 * Wire schemas of team secrets (POST|GET /secrets, GET|POST|DELETE /secrets/{secretID}), in the
 * API's casing (docs/service.md#secrets). No answer carries a value: a Secret is metadata only.
 */
import { z } from "zod";

/** Customer metadata: at most 32 string entries (keys to 128 bytes, values to 1024, 8192 in all). */
export const SecretMetadata = z.record(z.string(), z.string());
export type SecretMetadata = z.infer<typeof SecretMetadata>;

/** Body of POST /secrets: `name` is `[a-zA-Z0-9_-]{1,128}`, stored lower-cased. */
export const NewSecret = z.object({ name: z.string(), value: z.string(), metadata: SecretMetadata.optional() });
export type NewSecret = z.infer<typeof NewSecret>;

/** Body of POST /secrets/{secretID}: a new version; `metadata` replaces the old when present. */
export const SecretUpdate = z.object({ value: z.string(), metadata: SecretMetadata.optional() });
export type SecretUpdate = z.infer<typeof SecretUpdate>;

/** A secret as every answer shows it; `currentVersion` counts the values written. */
export const SecretInfo = z.object({
  secretID: z.string(),
  name: z.string(),
  currentVersion: z.number().int(),
  metadata: SecretMetadata,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type SecretInfo = z.infer<typeof SecretInfo>;
