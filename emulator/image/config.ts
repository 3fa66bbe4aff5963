/**
 * What a template inherits from its image besides the files: the image config's environment,
 * working directory, user and start command (the OCI image spec's `config` object). A build's later
 * steps run with these, as docker's do after FROM.
 */
import { z } from "zod";

const configBlob = z.object({
  config: z
    .object({
      Env: z.array(z.string()).nullish(),
      WorkingDir: z.string().nullish(),
      User: z.string().nullish(),
      Entrypoint: z.array(z.string()).nullish(),
      Cmd: z.array(z.string()).nullish(),
    })
    .nullish(),
});

export interface ImageConfig {
  /** In the image's order; a later duplicate wins, as docker's does. */
  env: Record<string, string>;
  /** `""` when the image names none (the runtime then uses `/`). */
  workingDir: string;
  /** `""` when the image names none (root). */
  user: string;
  entrypoint: string[];
  cmd: string[];
}

/** @throws Error naming the image when the blob is not an image config. */
export function readImageConfig(image: string, blob: Buffer): ImageConfig {
  let doc: unknown;
  try {
    doc = JSON.parse(blob.toString("utf8"));
  } catch {
    throw new Error(`image '${image}': the config blob is not JSON`);
  }
  const parsed = configBlob.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`image '${image}': the config blob is malformed at ${issue.path.join(".")}: ${issue.message}`);
  }
  const c = parsed.data.config ?? {};
  const env: Record<string, string> = {};
  for (const line of c.Env ?? []) {
    const eq = line.indexOf("=");
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return { env, workingDir: c.WorkingDir ?? "", user: c.User ?? "", entrypoint: c.Entrypoint ?? [], cmd: c.Cmd ?? [] };
}
