// What each command does with the stacks, and what it prints: one line per environment, as each
// finishes, so a CI log or a script can read the sandbox IDs (`up <stack>: <role>=<id> ...`).
import type { LocalWorkspace } from "@pulumi/pulumi/automation/index.js";
import type { Args } from "./args.ts";
import { stackNamesOf } from "./names.ts";
import { settleLimited } from "./pool.ts";
import { removeStack, sandboxIDsOf, stackNames, upStack, type SandboxIDs } from "./stacks.ts";

const ids = (sandboxes: SandboxIDs) => Object.entries(sandboxes).map(([role, id]) => `${role}=${id}`).join(" ") || "(no sandboxes)";

/** Prints a failed environment's error (the CLI's own output, which names the resource and the rule); returns how many failed. */
function report(verb: string, names: string[], results: PromiseSettledResult<unknown>[]): number {
  const failed = results.flatMap((r, i) => (r.status === "rejected" ? [[names[i]!, r.reason] as const] : []));
  for (const [name, reason] of failed) console.error(`${verb} ${name} failed: ${reason instanceof Error ? reason.message : String(reason)}`);
  return failed.length;
}

export async function up(ws: LocalWorkspace, args: Args): Promise<number> {
  const names = stackNamesOf(args.names);
  if (names.length === 0) throw new Error("up needs the names of the environments (branches or people) to create or update");
  const results = await settleLimited(names, args.parallel, async (name) => {
    const sandboxes = await upStack(ws, name, args);
    console.log(`up ${name}: ${ids(sandboxes)}`);
  });
  return report("up", names, results);
}

export async function list(ws: LocalWorkspace, args: Args): Promise<number> {
  const names = await stackNames(ws);
  if (names.length === 0) console.log("no environments");
  const results = await settleLimited(names, args.parallel, async (name) => console.log(`${name}: ${ids(await sandboxIDsOf(ws, name))}`));
  return report("list", names, results);
}

async function remove(ws: LocalWorkspace, names: string[], parallel: number): Promise<number> {
  const results = await settleLimited(names, parallel, async (name) => {
    const deleted = await removeStack(ws, name);
    console.log(`removed ${name}: ${deleted} resources destroyed, stack removed`);
  });
  return report("remove", names, results);
}

export async function down(ws: LocalWorkspace, args: Args): Promise<number> {
  const wanted = stackNamesOf(args.names);
  if (wanted.length === 0) throw new Error("down needs the names of the environments to destroy");
  const existing = new Set(await stackNames(ws));
  const missing = wanted.filter((n) => !existing.has(n));
  if (missing.length > 0) throw new Error(`no such environment: ${missing.join(", ")} (node envs.ts list shows them)`);
  return remove(ws, wanted, args.parallel);
}

/**
 * `--keep`: every environment not named goes. `--merged`: the named ones go (a name without an
 * environment is fine: most merged branches never had one), except any `--keep` names.
 */
export async function prune(ws: LocalWorkspace, args: Args): Promise<number> {
  if (!args.merged && (!args.keep || args.keep.length === 0)) {
    throw new Error("prune needs --keep <name...> (remove every other environment) or --merged <name...> (remove these)");
  }
  const keep = new Set(stackNamesOf(args.keep ?? []));
  const merged = args.merged && new Set(stackNamesOf(args.merged));
  const gone = (await stackNames(ws)).filter((n) => !keep.has(n) && (!merged || merged.has(n)));
  if (gone.length === 0) console.log("nothing to prune");
  return remove(ws, gone, args.parallel);
}
