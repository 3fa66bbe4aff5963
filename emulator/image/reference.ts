/**
 * An image reference as a template's FROM (or `fromImage`) names it, read as docker reads one: the
 * first part is a registry host only when it looks like one (a `.` or `:` in it, or `localhost`),
 * else the image is Docker Hub's, where a one-part name lives under `library/`. No tag and no digest
 * means `latest`. The emulator pulls from what this returns, so a name the service would read
 * differently must be refused here rather than pulled from the wrong place.
 */

/** Docker Hub's name in a reference, and the host its registry API answers on. */
export const DOCKER_HUB = "docker.io";
export const DOCKER_HUB_REGISTRY = "registry-1.docker.io";

export interface ImageReference {
  /** The text as given, for messages. */
  text: string;
  /** The host (and port) whose `/v2/` API holds the image. */
  registry: string;
  /** The repository path on that registry (`library/python`). */
  repository: string;
  tag?: string;
  /** `sha256:<64 hex>`, when the reference pins one. */
  digest?: string;
  /** What the manifest is asked for by: the digest when pinned, else the tag. */
  reference: string;
}

// The distribution project's grammar: lower-case components joined by `.`, `_`, `__` or dashes.
const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;
const HOST = /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:]+\])(?::\d{1,5})?$/;

/** @throws Error naming the reference and the part that is malformed. */
export function parseReference(text: string): ImageReference {
  const bad = (why: string) => new Error(`image reference '${text}' is malformed: ${why}`);
  if (text.trim() === "" || text !== text.trim()) throw bad("it is empty or has spaces around it");
  const [named, digest, extra] = text.split("@");
  if (extra !== undefined) throw bad("more than one '@'");
  if (digest !== undefined && !DIGEST.test(digest)) throw bad(`digest '${digest}' is not sha256:<64 lower-case hex>`);
  const slash = named!.indexOf("/");
  const first = slash < 0 ? "" : named!.slice(0, slash);
  const hasHost = first !== "" && (first.includes(".") || first.includes(":") || first === "localhost");
  const host = hasHost ? first : DOCKER_HUB;
  if (hasHost && !HOST.test(host)) throw bad(`registry host '${host}' is not a host name with an optional port`);
  let path = hasHost ? named!.slice(slash + 1) : named!;
  let tag: string | undefined;
  const colon = path.lastIndexOf(":");
  if (colon >= 0) {
    tag = path.slice(colon + 1);
    path = path.slice(0, colon);
    if (!TAG.test(tag)) throw bad(`tag '${tag}' is not 1-128 of letters, digits, '_', '.' and '-' (not starting with '.' or '-')`);
  }
  if (path === "") throw bad("no repository name");
  for (const part of path.split("/")) {
    if (!COMPONENT.test(part)) throw bad(`repository part '${part}' must be lower-case letters and digits, joined by '.', '_' or '-'`);
  }
  const hub = host === DOCKER_HUB || host === "index.docker.io";
  const repository = hub && !path.includes("/") ? `library/${path}` : path;
  if (tag === undefined && digest === undefined) tag = "latest";
  return {
    text,
    registry: hub ? DOCKER_HUB_REGISTRY : host,
    repository,
    ...(tag !== undefined ? { tag } : {}),
    ...(digest !== undefined ? { digest } : {}),
    reference: digest ?? tag!,
  };
}
