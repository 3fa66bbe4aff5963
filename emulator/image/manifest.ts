/**
 * The registry's manifests as the pull reads them: an index (OCI image index, Docker manifest list)
 * names one manifest per platform; a manifest names the config blob and the layers, oldest first.
 * Both the OCI and the Docker v2 media types are read, as registries serve either; Docker's signed
 * schema 1 is not (the distribution project dropped it), so it is refused by name.
 */
import { z } from "zod";

export const MEDIA = {
  ociIndex: "application/vnd.oci.image.index.v1+json",
  ociManifest: "application/vnd.oci.image.manifest.v1+json",
  dockerList: "application/vnd.docker.distribution.manifest.list.v2+json",
  dockerManifest: "application/vnd.docker.distribution.manifest.v2+json",
} as const;

/** What a manifest GET accepts, so that a registry answers with an index when it has one. */
export const MANIFEST_ACCEPT = [MEDIA.ociIndex, MEDIA.ociManifest, MEDIA.dockerList, MEDIA.dockerManifest].join(", ");

const descriptor = z.object({
  mediaType: z.string(),
  digest: z.string().regex(/^sha256:[a-f0-9]{64}$/, "must be sha256:<64 hex>"),
  size: z.number().int().nonnegative(),
  platform: z.object({ os: z.string(), architecture: z.string(), variant: z.string().optional() }).optional(),
});
export type Descriptor = z.infer<typeof descriptor>;

const indexSchema = z.object({ manifests: z.array(descriptor) });
const manifestSchema = z.object({ config: descriptor, layers: z.array(descriptor) });
export type ImageManifest = z.infer<typeof manifestSchema>;

export interface Platform {
  os: string;
  architecture: string;
}

/** The OCI name of the host's architecture (Node's `x64` is OCI's `amd64`). */
export function hostPlatform(): Platform {
  const names: Partial<Record<string, string>> = { x64: "amd64", arm64: "arm64", arm: "arm", ia32: "386", ppc64: "ppc64le", s390x: "s390x" };
  return { os: "linux", architecture: names[process.arch] ?? process.arch };
}

export type ParsedManifest = { kind: "index"; manifests: Descriptor[] } | { kind: "manifest"; manifest: ImageManifest };

/** @throws Error naming the image and what the document lacks. */
export function parseManifest(image: string, body: Buffer, contentType: string): ParsedManifest {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString("utf8"));
  } catch {
    throw new Error(`image '${image}': the registry's manifest is not JSON`);
  }
  const declared = (typeof doc === "object" && doc !== null && "mediaType" in doc ? String(doc.mediaType) : "") || contentType.split(";")[0]!.trim();
  if (/manifest\.v1\+(pretty)?jws|manifest\.v1\+json$/.test(declared) && declared.includes("docker")) {
    throw new Error(`image '${image}': the registry serves only a Docker schema 1 manifest, which the emulator does not read`);
  }
  const isIndex = declared === MEDIA.ociIndex || declared === MEDIA.dockerList || (typeof doc === "object" && doc !== null && "manifests" in doc);
  const parsed = isIndex ? indexSchema.safeParse(doc) : manifestSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`image '${image}': the registry's ${isIndex ? "index" : "manifest"} is malformed at ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  return "manifests" in parsed.data ? { kind: "index", manifests: parsed.data.manifests } : { kind: "manifest", manifest: parsed.data };
}

/** @throws Error naming the platforms the image has when none is `want`. */
export function pickPlatform(image: string, manifests: Descriptor[], want: Platform): Descriptor {
  const found = manifests.find((m) => m.platform?.os === want.os && m.platform.architecture === want.architecture);
  if (found) return found;
  const has = manifests.flatMap((m) => (m.platform ? [`${m.platform.os}/${m.platform.architecture}`] : [])).join(", ");
  throw new Error(`image '${image}' has no ${want.os}/${want.architecture} variant (it has: ${has || "none named"})`);
}
