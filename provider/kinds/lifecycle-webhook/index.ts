/** The LifecycleWebhook kind: a team webhook for sandbox lifecycle events (./spec.ts has the map of calls). */
import { defineKind, type KindDefinition } from "../kind";
import { lifecycleWebhookSpec } from "./spec";

export const lifecycleWebhookKind: KindDefinition<typeof lifecycleWebhookSpec> = defineKind({
  spec: lifecycleWebhookSpec,
  handlers: async () => (await import("./lifecycle-webhook.js")).lifecycleWebhookHandlers,
  // The service never answers the signature secret (provider/plugin/README.md, import): as for a
  // Template's Dockerfile, the diff takes the one recorded since, else the program's, so declaring an
  // imported webhook plans no change; a later change of the secret is one PATCH.
  notReadBack: ["signatureSecret"],
});
