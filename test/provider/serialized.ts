/** The provider handle serialized exactly as `new dynamic.Resource` serializes it into state (§3.1). */
import * as pulumi from "@pulumi/pulumi";
import { providerFor } from "../../provider/handle";
import type { ResourceKind } from "../../provider/spec";

export async function serializedProvider(kind: ResourceKind): Promise<{ text: string; exportName: string; containsSecrets: boolean }> {
  const provider = providerFor(kind);
  return pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
}
