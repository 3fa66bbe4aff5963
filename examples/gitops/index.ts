// The program the GitOps pipeline deploys: one sandbox per stack, from the service's `base` template,
// so a pull request's stack (pr-<number>) and main's stack each get their own environment. Tiny on
// purpose: what this example shows is the pipeline around it (.github/workflows/, ci.sh).
import * as pulumi from "@pulumi/pulumi";
import { Sandbox } from "pulumi-sandbox";

const config = new pulumi.Config();
const stack = pulumi.getStack();

const app = new Sandbox("app", {
  templateID: config.get("template") ?? "base",
  // A pull request's environment lives while it is reviewed; the next push's `up` renews it.
  timeoutSeconds: config.getNumber("timeoutSeconds") ?? 3600,
  // Names the stack in the service's listing, so a sandbox can be traced to its pull request.
  metadata: { stack, project: pulumi.getProject() },
});

export const sandboxID = app.sandboxID;
export const sandboxEndAt = app.endAt;
