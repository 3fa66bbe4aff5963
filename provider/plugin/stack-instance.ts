/**
 * The stack instance of the plugin's resources (../resource-key.ts): the ID of the provider instance
 * this process serves. The engine starts one plugin process per provider instance and sends that ID
 * with Configure, before any Check: the ID of the default provider (`pulumi:providers:sandbox::default`,
 * or `default_<version>` when the SDK names a version, as the generated ones do), or of an explicit
 * provider. It is the engine's unknown value at the preview of the `up` that creates the provider,
 * and empty from an engine that does not send it (the key is then the URN alone).
 */
import { resourceKeyOf } from "../resource-key";

let instance: string | undefined;

export function setStackInstance(providerID: string | undefined): void {
  instance = providerID || undefined;
}

/** The key of a resource with this URN that state does not hold yet. */
export function keyFor(urn: string): string {
  return resourceKeyOf(instance, urn);
}
