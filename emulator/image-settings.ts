/**
 * The emulator's `images` setting (options.ts) as the stores take it: the option, else
 * `$SANDBOX_EMULATOR_IMAGES` (how a test suite or a script that must run offline says `host` once for
 * every emulator it starts), else `registry`. A value that is none of the three is refused by name.
 */
import type { EmulatorOptions } from "./options";
import type { ImageSettings, ImagesMode } from "./store/image-roots";

const MODES: readonly ImagesMode[] = ["registry", "registry-or-host", "host"];

/** The environment variable that sets `images` when the option is not given. */
export const IMAGES_ENV = "SANDBOX_EMULATOR_IMAGES";

export function imageSettings(options: Pick<EmulatorOptions, "images" | "registryMirrors" | "insecureRegistries">): ImageSettings {
  const given = options.images ?? process.env[IMAGES_ENV] ?? "registry";
  const mode = MODES.find((m) => m === given);
  if (!mode) {
    const from = options.images !== undefined ? "images" : IMAGES_ENV;
    throw new Error(`${from} must be one of ${MODES.join(", ")}, got '${given}'`);
  }
  return { mode, mirrors: { ...options.registryMirrors }, insecure: [...(options.insecureRegistries ?? [])] };
}
