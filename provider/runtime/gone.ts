/**
 * A change to a resource the service no longer has. Sandboxes end at their timeout as a matter of
 * course, and any resource can be deleted by another client; the engine learns of it only at a
 * refresh, so until then an update reaches the service and meets its 404, which says neither what
 * happened nor what to do. This turns that 404 into a message that does, for every kind alike.
 *
 * A 404 inside an update can also be of something else (a build a TemplateTag points at, a file on a
 * volume): the resource's own `read` decides, so the message is given only when the resource itself
 * is gone, and the service's own error otherwise.
 */
import { definitionOf, type ResourceKind } from "../kinds";
import { resourceNameOf } from "../resource-key";
import { isNotFound } from "./handlers";

export class GoneError extends Error {
  override readonly name = "GoneError";

  constructor(kind: ResourceKind, id: string, resourceKey: string | undefined, cause: unknown) {
    const name = resourceNameOf(resourceKey ?? "");
    // How a kind comes to be gone without Pulumi is in its folder; otherwise another client deleted it.
    const how = definitionOf(kind).howGone ?? "it was deleted outside Pulumi";
    super(
      `${kind}${name ? ` "${name}"` : ""} ${id} no longer exists in the service (${how}): ` +
        "run `pulumi refresh` to drop it from the state, or `pulumi up --refresh` to make a new one.",
      { cause },
    );
  }
}

/**
 * Runs `change`; when it fails with a 404 and `exists` (the kind's read) finds the resource gone,
 * throws a GoneError instead. A failing look keeps the original error: it is the one that happened.
 */
export async function unlessGone<T>(
  kind: ResourceKind, id: string, resourceKey: string | undefined, exists: () => Promise<{ id?: string }>, change: () => Promise<T>,
): Promise<T> {
  try {
    return await change();
  } catch (err) {
    if (!isNotFound(err)) throw err;
    const found = await exists().catch(() => ({ id: "unknown" }));
    if (found.id) throw err;
    throw new GoneError(kind, id, resourceKey, err);
  }
}
