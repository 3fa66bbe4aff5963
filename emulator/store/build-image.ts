/**
 * A v2 build's FROM image (build-runner.ts): pulled and unpacked through image-roots.ts, or, where
 * the emulator's `images` setting says so, the host's system dirs (the emulator before images). The
 * build's log says which, and a pull that fails ends the build in the service's words unless the
 * setting allows the host's dirs instead.
 */
import type { RegistryCredentials } from "../image/registry-auth";
import { ImagePullError, type ImageRoots } from "./image-roots";
import type { LogLevel } from "./template-records";
import type { TemplateResult } from "./template-tree";

/** What the build starts from: the result with its image set, and its layers' hash chain's first link; or why not. */
export type FromImage = { key: string } | { failure: string };

/**
 * Sets `result`'s image (and its config's environment, which the service makes the template's: infra
 * phases/base/builder.go, `EnvVars = oci.ParseEnvs(envsImg.Env)`), or leaves it on the host's dirs.
 */
export async function fromImage(
  images: ImageRoots | undefined,
  source: { reference: string; credentials?: RegistryCredentials | undefined },
  result: TemplateResult,
  log: (level: LogLevel, message: string) => void,
  signal: AbortSignal,
): Promise<FromImage> {
  const { reference } = source;
  const onHost = () => ({ key: `image:${reference}` });
  if (!images || images.settings.mode === "host") {
    log("info", `The emulator runs this template on the host's system dirs, not on ${reference}'s files (images: host)`);
    return onHost();
  }
  log("info", `Pulling image ${reference}`);
  try {
    const root = await images.root(reference, source.credentials, signal);
    result.image = { reference, digest: root.digest, dir: root.dir };
    result.env = { ...root.env, ...result.env };
    log("info", root.unpackedNow ? `Pulled image ${reference} (${root.digest})` : `Image ${reference} (${root.digest}) is already unpacked: no layer pulled`);
    return { key: `image:${root.digest}` };
  } catch (err) {
    if (!(err instanceof ImagePullError)) throw err;
    log("error", err.detail);
    if (images.settings.mode === "registry-or-host") {
      log("warn", `The emulator runs this template on the host's system dirs, not on ${reference}'s files: the pull failed (images: registry-or-host)`);
      return onHost();
    }
    return { failure: err.message };
  }
}
