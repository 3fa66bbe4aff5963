// A lifecycle webhook and the sandbox it reports on: the service POSTs each event of the sandbox's life
// (created, paused, killed...) to the receiver (./receiver.js), signed with `webhookSecret`. Start the
// receiver first (README.md), then `pulumi up`; `pulumi config set paused true` and `up` pause the
// sandbox, `pulumi destroy` kills it, and the receiver logs each event once it has verified it.
import * as pulumi from "@pulumi/pulumi";
import { LifecycleWebhook, Sandbox } from "pulumi-sandbox";

const config = new pulumi.Config();

const hook = new LifecycleWebhook("sandbox-events", {
  url: config.get("receiverUrl") ?? "http://127.0.0.1:8787/events",
  // Any of the service's types, each once (checked at preview); left out, every type.
  events: ["sandbox.lifecycle.created", "sandbox.lifecycle.paused", "sandbox.lifecycle.resumed", "sandbox.lifecycle.killed"],
  // Write-only: the service signs with it and never returns it. Changing it is one PATCH.
  signatureSecret: config.requireSecret("webhookSecret"),
});

// The webhook reports every sandbox of the team: this tag is how the receiver tells this stack's apart.
const box = new Sandbox("worker", {
  templateID: "base",
  timeoutSeconds: 3600,
  metadata: { app: "lifecycle-webhook-demo", stack: pulumi.getStack() },
  state: config.getBoolean("paused") ? "paused" : "running",
}, { dependsOn: [hook] }); // registered first, so the webhook sees the sandbox's `created`

export const webhookID = hook.webhookID;
export const sandboxID = box.sandboxID;
