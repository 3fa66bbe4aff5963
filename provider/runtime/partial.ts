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
