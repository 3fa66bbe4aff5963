/**
 * What `check` adds to a Volume's inputs: the manifest of its seed (`content.files`: each file's
 * SHA-256, mode and size, by volume path), read from the directory or archive at every preview, so the
 * diff names each file added, changed or removed and a bad seed fails before any API call. Local work
 * like a Template's steps (../template/derive.ts): it reads files and calls nothing.
 */
import { containsUnknown } from "../../spec";
import type { DeriveOutcome } from "../handler-shape";
import { readContent, type ContentSource } from "./source";

export function deriveContentManifest(inputs: Record<string, unknown>): DeriveOutcome {
  const content = inputs.content as ContentSource | undefined;
  if (content === undefined || containsUnknown(content)) return { inputs };
  // `check` has validated the rest (./spec.ts): exactly one of path and archive, a clean target.
  const field = content.path === undefined ? "archive" : "path";
  const fail = (problems: string[]): DeriveOutcome => ({ failures: problems.map((p) => ({ property: "", reason: `content.${field}: ${p}` })) });
  let reading: ReturnType<typeof readContent>;
  try {
    reading = readContent(content);
  } catch (err) {
    return fail([`cannot be read: ${(err as Error).message}`]);
  }
  if (reading.problems.length > 0) return fail(reading.problems);
  return { inputs: { ...inputs, content: { ...content, files: reading.manifest } } };
}
