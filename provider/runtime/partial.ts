/**
 * A create that fails after the service made the resource must not lose it. The dynamic-provider
 * host turns an error carrying `id` and `properties` into the engine's ErrorResourceInitFailed, so the
 * resource is recorded (with init errors) and the next `pulumi up` updates it to finish the job, and
 * `destroy` deletes it. `__provider` must be in the properties: the host does not add it on this path,
 * and a later read or delete would find no provider to load. The host packs the properties with
 * `Struct.fromJavaScript`, which throws on `undefined`: they are made plain JSON first.
 */
export class PartialCreateError extends Error {
  override readonly name = "PartialCreateError";
  readonly id: string;
  readonly properties: Record<string, unknown>;
  readonly reasons: string[];

  constructor(message: string, id: string, properties: Record<string, unknown>, provider: unknown) {
    super(message);
    this.id = id;
    // Plain JSON: the host packs this with Struct.fromJavaScript, which throws on `undefined` inside its error path (the call then never answers).
    this.properties = JSON.parse(JSON.stringify({ ...properties, __provider: provider })) as Record<string, unknown>;
    this.reasons = [message];
  }
}

/** The resource a create's later steps work on: the ID the service gave, and its state as known without asking the service again. */
export interface MadeResource {
  kind: string;
  id: string;
  /** Its state so far: a step that failed may have been a read, so nothing here asks the service. */
  properties: () => Record<string, unknown>;
  provider: unknown;
}

/**
 * Runs `step`, a part of a create after the service gave the resource its ID. Whatever it throws is
 * thrown as a PartialCreateError with that ID, so the engine records the resource and the next `up`
 * finds it by state: left unrecorded, it was found again only by a marker, and not at all once a
 * finished create had claimed it (../kinds/sandbox/claim.ts). A PartialCreateError is thrown as it is.
 */
export async function recordedOnFailure<T>(made: MadeResource, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof PartialCreateError) throw err;
    const why = (err instanceof Error ? err.message : String(err)).split("\n")[0];
    const message = `${made.kind} ${made.id} was made, but its create failed after: ${why}\nIt is recorded in the stack's state: the next \`pulumi up\` finishes it, \`pulumi destroy\` deletes it.`;
    throw new PartialCreateError(message, made.id, made.properties(), made.provider);
  }
}
