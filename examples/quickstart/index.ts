// The quickstart: build a template (a Dockerfile that copies ./app into it), create a volume, and start a sandbox from the template with the
// volume mounted and a provisioning step. Runs against the real service, or the embedded emulator
// (`npm start` at the repository root does that for you).
import * as pulumi from "@pulumi/pulumi";
import { Sandbox, Template, Volume } from "pulumi-sandbox";

const config = new pulumi.Config();
const toolchain = config.get("toolchain") ?? "v1";
const message = config.get("message") ?? "provisioned by pulumi";

const template = new Template("quickstart", {
  // A change of the Dockerfile's steps (here: of `toolchain`) rebuilds the template in place, same templateID.
  dockerfile: [
    "FROM e2bdev/base:latest",
    `ENV TOOLCHAIN=${toolchain}`,
    // Read from `context` below: edit a file of ./app and `pulumi preview --diff` shows this step changed.
    "COPY app /home/user/app",
    "RUN echo 'base image ready'",
  ].join("\n"),
  // The build context: COPY sources are read from this directory (relative to this project). Only the
  // files the service does not have yet are uploaded; an unchanged ./app uploads nothing.
  context: ".",
  cpuCount: 2,
  memoryMB: 1024,
  // Flipping this is one PATCH, never a rebuild.
  public: config.getBoolean("public") ?? false,
});

const volume = new Volume("quickstart-data");

const sandbox = new Sandbox("quickstart", {
  templateID: template.templateID,
  timeoutSeconds: config.getNumber("sandboxTimeout") ?? 3600,
  metadata: { purpose: "quickstart" },
  // envVars are encrypted in state; a value the program marks secret (this one) is also hidden from logs.
  envVars: { DEMO_TOKEN: config.getSecret("demoToken") ?? pulumi.secret("demo-token-5d1f0c2a9e") },
  volumeMounts: [{ name: volume.name, path: "/home/user/data" }],
  provision: {
    // Installs nothing from the internet: writes a file in the home dir and one on the volume, by
    // the absolute paths the sandbox (real or emulated) has, as user `user`.
    commands: [
      { command: `echo "${message}" > /home/user/provisioned.txt && cat /home/user/provisioned.txt` },
      { command: "date -u +%Y-%m-%dT%H:%M:%SZ > /home/user/data/last-provisioned && ls /home/user/data" },
    ],
  },
});

export const templateID = template.templateID;
export const templateBuildID = template.buildID;
export const templatePublic = template.public;
export const volumeName = volume.name;
export const sandboxID = sandbox.sandboxID;
export const sandboxEndAt = sandbox.endAt;
export const provisioned = sandbox.provisioned;
export const provisionResults = sandbox.provisionResults;
