// The environments as Pulumi stacks of PROGRAM_DIR, through the Automation API: one workspace (the
// program's folder), one stack per environment, each command a Pulumi CLI of its own (`--stack`),
// so several run at once. (@pulumi/pulumi has no `exports` map: an ES module names the file.)
import { LocalWorkspace, Stack, type LocalWorkspace as Workspace } from "@pulumi/pulumi/automation/index.js";
import { PROGRAM_DIR, type Service } from "./service.ts";

export interface UpOptions {
  sandboxes: string[] | undefined;
  template: string | undefined;
}

/** role → sandbox ID, the program's `sandboxIDs` output. */
export type SandboxIDs = Record<string, string>;

export function openWorkspace(service: Service): Promise<Workspace> {
  return LocalWorkspace.create({ workDir: PROGRAM_DIR, envVars: service.envVars });
}

/** Creates the stack if it is new, sets what the command line gave, and runs `up`. */
export async function upStack(ws: Workspace, name: string, opts: UpOptions): Promise<SandboxIDs> {
  const stack = await Stack.createOrSelect(name, ws);
  if (opts.sandboxes) await stack.setConfig("sandboxes", { value: JSON.stringify(opts.sandboxes) });
  if (opts.template) await stack.setConfig("template", { value: opts.template });
  const result = await stack.up();
  return (result.outputs.sandboxIDs?.value ?? {}) as SandboxIDs;
}

/** Destroys everything of the stack, then removes it (and its config file) from the backend. */
export async function removeStack(ws: Workspace, name: string): Promise<number> {
  const stack = await Stack.select(name, ws);
  const result = await stack.destroy();
  await ws.removeStack(name);
  return result.summary.resourceChanges?.delete ?? 0;
}

/** The backend's stacks of this program, by name. */
export async function stackNames(ws: Workspace): Promise<string[]> {
  return (await ws.listStacks()).map((s) => s.name).sort();
}

export async function sandboxIDsOf(ws: Workspace, name: string): Promise<SandboxIDs> {
  const outputs = await ws.stackOutputs(name);
  return (outputs.sandboxIDs?.value ?? {}) as SandboxIDs;
}
