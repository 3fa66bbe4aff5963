/**
 * The init pid of each running image sandbox's namespaces (isolation/namespace.ts), by sandbox ID:
 * such a sandbox's `/` is an overlay mounted only inside them, so the file API reaches its files
 * through `/proc/<pid>/root` (links.ts), as its own commands see them. Set when the namespaces
 * start (sandboxes.ts), dropped when they stop.
 */
export const viewPids = new Map<string, number>();
