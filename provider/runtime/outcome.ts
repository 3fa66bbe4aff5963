/**
 * Creates whose outcome is unknown. The sdk never repeats a create after a connection broke once the
 * request was sent (the server may have made the resource). The provider then finds out by looking
 * the resource up by its marker or name, and only creates again when the look-up finds nothing.
 */
import { isSandboxError } from "../../sdk/errors";

/** True when the service may have made the resource: no definite 4xx answer came back. */
export function outcomeUnknown(err: unknown): boolean {
  if (!isSandboxError(err)) return false;
  if (err.status !== undefined && err.status >= 400 && err.status < 500) return false;
  return err.code === "unavailable" || err.code === "timeout" || err.code === "internal" || err.code === "unknown";
}

/**
 * create, else (outcome unknown) find, else create again; at most `attempts` creates. A create the
 * service provably refused (4xx) is thrown at once.
 *
 * The sdk does not repeat a create on a 503 or a dropped connection, so each attempt fails with the
 * share of calls so failing (about 0.16 when a quarter of calls are disturbed): 3 attempts lost one
 * create in 250, one `up` of a dozen resources in 20; 5 attempts lose one create in 10,000.
 */
export async function createOnce<T>(create: () => Promise<T>, find: () => Promise<T | undefined>, attempts = 5): Promise<T> {
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      return await create();
    } catch (err) {
      if (!outcomeUnknown(err)) throw err;
      last = err;
      const found = await find();
      if (found !== undefined) return found;
    }
  }
  throw last;
}

/** The service's answer to a create whose name is taken (classified by the sdk). */
export function isAlreadyExists(err: unknown): boolean {
  return isSandboxError(err) && err.reason === "name_taken";
}

/** Whether `check` filled this input with an auto-name (see ../kinds/naming.ts). */
export function autoNamed(inputs: Record<string, unknown>, field: string): boolean {
  return Array.isArray(inputs.__auto) && inputs.__auto.includes(field);
}
