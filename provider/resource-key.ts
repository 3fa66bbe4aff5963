/**
 * The resource key: what a resource's auto-names (./kinds/naming.ts), its sandbox marker and the list
 * of its stack's sandboxes (./kinds/sandbox/adoption.ts) derive from. `check` mints it at the first
 * create and keeps it in state from then on (./check.ts), so nothing here ever renames a resource.
 *
 * A key is `<stack instance>/<URN>`. The URN makes it unique within its stack (two components' children
 * named alike differ by their parent types), but a URN names neither the organisation nor the backend:
 * two people's `dev` stacks of one project on two `file://` backends have the same URNs, and with keys
 * from the URN alone the second one's `up` adopted the first one's resources and its `destroy` deleted
 * them. The stack instance is what tells those two stacks apart: the ID of the provider instance that
 * serves the resource. The engine mints that ID (a random UUID) when it first creates the provider in
 * the stack, records it in the stack's state before any resource that uses the provider is created,
 * and keeps it through every later run, a kill, `pulumi stack rename`, a project rename and an
 * export/import. So two stacks never share one, and the re-run of a killed `up` finds the one the
 * killed run used. The organisation would add nothing: the ID is random per stack already, a file
 * backend's organisation is always `organization`, and the plugin is never told it.
 *
 * Keys written before this are the bare URN (0.2) or `<project>/<stack>/<name>` (0.1); they stay as they
 * are in state, and every function here reads all three forms.
 */
import { UNKNOWN } from "./spec";

const URN_START = "urn:pulumi:";

/**
 * The key for a resource of this URN in the stack instance `instance`. At the preview of a stack's first
 * `up` the provider does not exist yet and its ID is the engine's unknown value: the key is then unknown
 * too (and so are the auto-names). With no instance at all (an engine that does not send the provider's
 * ID, a program run under mocks) the key is the URN alone, as it was before.
 */
export function resourceKeyOf(instance: string | undefined, urn: string): string {
  if (instance === UNKNOWN) return UNKNOWN;
  return instance ? `${instance}/${urn}` : urn;
}

/** The URN a key was minted from, or undefined for a 0.1 key (which holds none). */
export function urnOf(resourceKey: string): string | undefined {
  const start = resourceKey.indexOf(URN_START);
  return start >= 0 ? resourceKey.slice(start) : undefined;
}

/** The resource's own name in its key: after the URN's last `::`, or the last `/` of a 0.1 key. */
export function resourceNameOf(resourceKey: string): string {
  const urnName = resourceKey.lastIndexOf("::");
  return urnName >= 0 ? resourceKey.slice(urnName + 2) : (resourceKey.split("/").pop() ?? "");
}

/**
 * The stack part of a key: the key up to the URN's project (`<instance>/urn:pulumi:<stack>::<project>`,
 * or `urn:pulumi:<stack>::<project>` for a 0.2 key), or `<project>/<stack>` of a 0.1 key. The instance
 * in it keeps the sandbox lists of two same-named stacks apart; the stack and project names are there
 * for whoever reads a sandbox's metadata.
 */
export function stackOf(resourceKey: string): string {
  const start = resourceKey.indexOf(URN_START);
  if (start >= 0) return resourceKey.slice(0, start) + resourceKey.slice(start).split("::").slice(0, 2).join("::");
  return resourceKey.includes("/") ? resourceKey.slice(0, resourceKey.lastIndexOf("/")) : resourceKey;
}
