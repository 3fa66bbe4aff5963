// The one definition every environment is made from: a sandbox per role, each labelled with the
// environment (the stack's name) so the service lists an environment's sandboxes by metadata too.
import * as pulumi from "@pulumi/pulumi";
import { Sandbox } from "pulumi-sandbox";

const config = new pulumi.Config();
const environment = pulumi.getStack();
const template = config.get("template") ?? "base";
const roles = config.getObject<string[]>("sandboxes") ?? ["app"];
const hours = config.getNumber("hours") ?? 8;

const sandboxes = roles.map(
  (role) =>
    new Sandbox(role, {
      templateID: template,
      timeoutSeconds: hours * 3600,
      // Environments share one team's key: the in-sandbox API of each answers only to its own token.
      secure: true,
      metadata: { environment, role },
      envVars: { ENVIRONMENT: environment, ROLE: role },
    }),
);

/** role → sandbox ID: what ../envs.ts prints for each environment. */
export const sandboxIDs = Object.fromEntries(roles.map((role, i) => [role, sandboxes[i]!.sandboxID]));
