// Reproducible team environments: one template, made public so other teams can use it too, and one
// sandbox per member from it, each with its own metadata and env vars and a welcome file.
import * as pulumi from "@pulumi/pulumi";
import { Sandbox, Template } from "pulumi-sandbox";

const config = new pulumi.Config();
const members = config.getObject<string[]>("members") ?? ["ada", "grace", "linus"];
const team = config.get("team") ?? "platform";
const sharedToken = config.getSecret("sharedToken") ?? pulumi.secret("team-shared-token-8a7e3f");

const template = new Template("team-env", {
  dockerfile: ["FROM e2bdev/base:latest", "ENV EDITOR=vim", "WORKDIR /home/user"].join("\n"),
  startCmd: "echo ready",
  public: true,
});

const sandboxes = members.map(
  (member) =>
    new Sandbox(`env-${member}`, {
      templateID: template.templateID,
      timeoutSeconds: 8 * 3600,
      metadata: { team, owner: member },
      envVars: { OWNER: member, TEAM_TOKEN: sharedToken },
      provision: { commands: [{ command: `echo "workspace of ${member} (${team})" > ~/WELCOME && cat ~/WELCOME` }] },
    }),
);

export const templateID = template.templateID;
export const templateNames = template.names;
export const environments = Object.fromEntries(members.map((m, i) => [m, sandboxes[i]!.sandboxID]));
