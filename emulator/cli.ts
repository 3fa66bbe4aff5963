/**
 * `sandbox-emulator`: runs the emulator until SIGINT/SIGTERM. The first stdout line is the JSON
 * `{apiUrl, sandboxUrl, apiKey, accessToken, isolation, pageUrl}` (so a parent process can read its endpoints;
 * `isolation` is `namespaces` or `none`, and `none` also prints a warning on stderr; with `--domain`,
 * also `domain` and `caFile`, and stderr says which variables point a client at them; `pageUrl` opens the
 * emulator's page signed in); request lines
 * go to stderr. Exit codes: 0 on a clean stop, 1 if it could not start, 2 on bad flags.
 */
import { parseArgs, USAGE } from "./cli-args";
import { isolationWarning, networkNote } from "./envd/isolation/mode";
import { createEmulator, type Emulator, type EmulatorOptions } from "./index";

/** Runs the CLI with the given arguments (default: the process's own). */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const parsed = parseArgs(argv);
  if (parsed.kind === "help") {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (parsed.kind === "error") {
    process.stderr.write(`sandbox-emulator: ${parsed.message}\n\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  await run(parsed.options);
}

const log = (line: string) => process.stderr.write(`${line}\n`);

async function run(options: EmulatorOptions): Promise<void> {
  let emulator: Emulator | undefined;
  let stopRequested = false;
  const stop = () => {
    if (emulator) void emulator.close().then(() => process.exit(0), stopFailed);
  };
  // Handlers go in before the ready line: a parent may signal as soon as it reads that line.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      log(`sandbox-emulator: ${signal}, stopping`);
      stopRequested = true;
      stop();
    });
  }
  try {
    emulator = await createEmulator({ ...options, log });
  } catch (err) {
    log(`sandbox-emulator: could not start: ${(err as Error).message}`);
    process.exit(1);
  }
  if (stopRequested) return stop();
  const { apiUrl, sandboxUrl, apiKey, accessToken, domain, caFile, pageUrl } = emulator;
  for (const line of [isolationWarning(emulator.isolation), networkNote(emulator.isolation)]) if (line) log(line);
  if (domain) log(`sandbox-emulator: serving https for ${domain}: a client needs E2B_DOMAIN=${domain} and the CA ${caFile} (NODE_EXTRA_CA_CERTS for Node, SSL_CERT_FILE for Python)`);
  const isolation = emulator.isolation.mode;
  const images = emulator.images;
  process.stdout.write(`${JSON.stringify({ apiUrl, sandboxUrl, apiKey, accessToken, isolation, images, ...(domain ? { domain, caFile } : {}), pageUrl })}\n`);
}

function stopFailed(err: unknown): never {
  log(`sandbox-emulator: error while stopping: ${(err as Error).message}`);
  process.exit(1);
}
