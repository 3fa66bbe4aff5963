#!/usr/bin/env node
// An environment per branch or person: one stack of ./environment per name, driven by Pulumi's
// Automation API (see README.md). `node envs.ts --help` lists the commands.
import { parseArgs, USAGE } from "./lib/args.ts";
import { down, list, prune, up } from "./lib/commands.ts";
import { runEmulator } from "./lib/emulator.ts";
import { resolveService } from "./lib/service.ts";
import { openWorkspace } from "./lib/stacks.ts";

const COMMANDS = { up, list, down, prune };

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (args.command === "emulator") return runEmulator().then(() => 0);
  const command = COMMANDS[args.command as keyof typeof COMMANDS];
  if (!command) {
    console.log(USAGE);
    return ["help", "--help", "-h"].includes(args.command) ? 0 : 2;
  }
  const service = resolveService();
  console.error(`${args.command} on the ${service.label}`);
  const failed = await command(await openWorkspace(service), args);
  return failed > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err: Error) => {
    console.error(`envs: ${err.message}`);
    process.exitCode = 2;
  },
);
