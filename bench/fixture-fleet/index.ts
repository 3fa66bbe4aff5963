// One SandboxFleet of `size` members from `base` through the dynamic provider (pulumi-sandbox as
// installed): members "m0" to "m<size-1>", alike but m0, whose EDITOR env var is the config `editor`
// (changing it changes that one member). The same fleet as bench/fleet.mjs writes in YAML for the plugin.
import * as pulumi from "@pulumi/pulumi";
import { SandboxFleet } from "pulumi-sandbox";

const config = new pulumi.Config();
const size = config.requireNumber("size");
const editor = config.get("editor") ?? "emacs";

const members: Record<string, { envVars?: Record<string, string> }> = {};
for (let i = 0; i < size; i++) members[`m${i}`] = i === 0 ? { envVars: { EDITOR: editor } } : {};

const fleet = new SandboxFleet("fleet", { sandbox: { templateID: "base", timeoutSeconds: 3600 }, members });

export const ready = fleet.ready;
