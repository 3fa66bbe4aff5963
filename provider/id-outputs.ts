/**
 * The outputs that are the resource's own ID. A preview knows the ID of a resource it updates, so
 * both front ends answer these from it (the classes from `this.id`, the plugin's preview of an update
 * from the request's id): a Sandbox whose `templateID` comes from a Template updated in place then
 * plans no replacement, and `up` makes none.
 */
import type { ResourceKind } from "./spec";

export const ID_OUTPUTS: Record<ResourceKind, readonly string[]> = {
  Template: ["templateID"],
  Volume: ["volumeID", "volumeId"],
  Sandbox: ["sandboxID"],
  // Its ID is `alias:tag`; its outputs name the template and build it points to, not itself.
  TemplateTag: [],
};
