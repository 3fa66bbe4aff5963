// Team environments as one resource: one template, and one sandbox per person from it in a
// SandboxFleet. Everyone gets the fleet's settings; a person's own (from stack config) merge over them:
// env vars and metadata key by key, anything else replacing the fleet's. Adding a person makes one
// sandbox, and a change to one person's settings touches that person's sandbox alone.
import * as pulumi from "@pulumi/pulumi";
import { SandboxFleet, Template } from "pulumi-sandbox";

/** What a person's sandbox has of its own (any Sandbox input but `forkFrom` may be given). */
interface Own {
  envVars?: Record<string, string>;
  metadata?: Record<string, string>;
  timeoutSeconds?: number;
}

const config = new pulumi.Config();
const people = config.getObject<Record<string, Own>>("people") ?? { ada: {}, grace: { envVars: { EDITOR: "emacs" } }, linus: {} };
const team = config.get("team") ?? "platform";
const sharedToken = config.getSecret("sharedToken") ?? pulumi.secret("team-shared-token-8a7e3f");

const template = new Template("team-env", {
  dockerfile: ["FROM e2bdev/base:latest", "ENV EDITOR=vim", "WORKDIR /home/user"].join("\n"),
  startCmd: "echo ready",
});

const environments = new SandboxFleet("team", {
  sandbox: {
    templateID: template.templateID,
    timeoutSeconds: 8 * 3600,
    metadata: { team },
    envVars: { TEAM_TOKEN: sharedToken },
    provision: { commands: [{ command: 'echo "workspace of $OWNER ($TEAM_NAME)" > ~/WELCOME && cat ~/WELCOME' }] },
  },
  // Each person's key names their sandbox; their own settings go over the fleet's.
  members: Object.fromEntries(Object.entries(people).map(([person, own]) => [person, {
    ...own,
    metadata: { owner: person, ...own.metadata },
    envVars: { OWNER: person, TEAM_NAME: team, ...own.envVars },
  }])),
});

export const templateID = template.templateID;
// The IDs hold no secret; `sandboxes` as a whole is secret in the program (it holds each sandbox's tokens).
export const environmentIDs = pulumi.unsecret(environments.sandboxes.apply((all) => Object.fromEntries(Object.entries(all).map(([person, m]) => [person, m.sandboxID]))));
export const ready = environments.ready;
