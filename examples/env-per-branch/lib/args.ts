// The command line: `<command> <names...> [--flag value] [--keep names...] [--merged names...]`.
// `--keep` and `--merged` take every word after them up to the next flag, so a shell's
// `$(git branch --merged main --format='%(refname:short)')` can follow them as it is.

export const USAGE = `usage: node envs.ts <command> [args]

  up <name...>                   create or update one environment (stack) per branch or person
      --sandboxes app,db         the environment's sandboxes, by role (default: app)
      --template T               the template they start from (default: base)
  list                           every environment with its sandbox IDs
  down <name...>                 destroy these environments and remove their stacks
  prune --keep <name...>         destroy and remove every environment not named
  prune --merged <name...>       destroy and remove these (e.g. merged branches), except any --keep names
  emulator                       run the local emulator until Ctrl-C, for the other commands to use

  --parallel N                   stacks run at once (default 2)

Service: E2B_API_KEY (with E2B_API_URL / E2B_DOMAIN for a service other than E2B's), else the
emulator that \`node envs.ts emulator\` runs. State: PULUMI_BACKEND_URL, else file://<ENVS_DIR>/state
(ENVS_DIR defaults to .envs beside envs.ts).`;

export interface Args {
  command: string;
  names: string[];
  keep: string[] | undefined;
  merged: string[] | undefined;
  parallel: number;
  sandboxes: string[] | undefined;
  template: string | undefined;
}

const LISTS = new Set(["--keep", "--merged"]);
const VALUES = new Set(["--parallel", "--sandboxes", "--template"]);

export function parseArgs(argv: string[]): Args {
  const [command = "help", ...rest] = argv;
  const lists: Record<string, string[]> = { names: [] };
  const values: Record<string, string> = {};
  let into = "names";
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!;
    if (LISTS.has(word)) lists[(into = word)] ??= [];
    else if (VALUES.has(word)) {
      const value = rest[++i];
      if (value === undefined || value.startsWith("--")) throw new Error(`${word} needs a value`);
      values[word] = value;
    } else if (word.startsWith("--")) throw new Error(`unknown flag ${word}`);
    else lists[into]!.push(word);
  }
  const parallel = Number(values["--parallel"] ?? 2);
  if (!Number.isInteger(parallel) || parallel < 1) throw new Error(`--parallel must be a whole number from 1, got ${values["--parallel"]}`);
  const sandboxes = values["--sandboxes"]?.split(",").map((s) => s.trim()).filter(Boolean);
  return { command, names: lists.names!, keep: lists["--keep"], merged: lists["--merged"], parallel, sandboxes, template: values["--template"] };
}
