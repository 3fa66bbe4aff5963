/**
 * Wire shapes shared by several areas of the platform API, in the API's own casing.
 */
import { z } from "zod";

/** Error body of the platform API: `{code, message}`; newer servers add `error_code`. */
export const ErrorBody = z.object({
  code: z.union([z.number(), z.string()]),
  message: z.string(),
  error_code: z.string().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Log levels of sandbox and build log entries. */
export const LogLevel = z.enum(["debug", "info", "warn", "error"]);
export type LogLevel = z.infer<typeof LogLevel>;
