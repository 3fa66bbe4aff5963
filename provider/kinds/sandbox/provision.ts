/** The `provision` input of a Sandbox: commands run in order inside it after creation. */
import { z } from "zod";

export const DEFAULT_COMMAND_TIMEOUT_SECONDS = 300;

export const ProvisionCommand = z.strictObject({
  command: z.string({ error: "must be a string (run with /bin/bash -l -c)" }).min(1, { error: "must not be empty" })
    .describe("Shell command, run as `/bin/bash -l -c <command>`."),
  cwd: z.string({ error: "must be a string" }).refine((p) => p.startsWith("/"), { error: "must be an absolute path" }).optional()
    .describe("Working directory. Default: the user's home."),
  envs: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "environment variable names must match ^[A-Za-z_][A-Za-z0-9_]*$" }),
    z.string({ error: "environment variable values must be strings" }), { error: "must be an object of environment variables" }).optional()
    .describe("Environment variables of this command. Values the program marks secret are redacted from logs and stored output."),
  user: z.string({ error: "must be a string" }).regex(/^[a-z_][a-z0-9_-]*$/, { error: "must be a user name" }).optional()
    .describe("User to run as. Default: the template's default user."),
  timeoutSeconds: z.number({ error: "must be a number of seconds" }).int({ error: "must be a whole number of seconds" })
    .min(1, { error: "must be at least 1" }).max(86_400, { error: "must be at most 86400" }).default(DEFAULT_COMMAND_TIMEOUT_SECONDS)
    .describe("Deadline of the command, in seconds; the process is killed when it passes. Default 300."),
});

export const ProvisionInput = z.strictObject({
  commands: z.array(ProvisionCommand, { error: "must be a list of commands" }).min(1, { error: "must hold at least one command" })
    .describe("Commands, run in order; a non-zero exit or a timeout stops the sequence."),
  triggers: z.unknown().optional().describe("Any values; a change replaces the sandbox (a fresh one is provisioned)."),
  onFailure: z.enum(["keep", "delete"], { error: "must be \"keep\" or \"delete\"" }).default("keep")
    .describe("On a failed command: `keep` records the sandbox and the next `up` re-runs the provisioning; `delete` kills it and fails."),
  logging: z.enum(["stdout", "stderr", "both", "none"], { error: "must be \"stdout\", \"stderr\", \"both\" or \"none\"" }).default("both")
    .describe("Which output streams of the commands are shown in the `pulumi up` log as they come. Default `both`. A change re-runs nothing."),
});

/** What state keeps of one command's run: the one declaration, read by the runtime and the class. */
export const ProvisionResult = z.object({
  command: z.string().describe("The command, with every secret value redacted."),
  exitCode: z.number().describe("Its exit code; -1 when it was killed or timed out."),
  durationMs: z.number().describe("How long it ran, in milliseconds."),
  stdoutTail: z.string().describe("The last 4 KiB of its stdout, secrets redacted."),
  stderrTail: z.string().describe("The last 4 KiB of its stderr, secrets redacted."),
});

export type ProvisionInput = z.output<typeof ProvisionInput>;
export type ProvisionResult = z.output<typeof ProvisionResult>;
export type ProvisionCommand = z.output<typeof ProvisionCommand>;
