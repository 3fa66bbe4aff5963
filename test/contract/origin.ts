/**
 * Vitest setup file of `npm test`: names the running test file in the env, so every exchange an
 * emulator of this file records (emulator/exchanges.ts), in-process or in a child process, says
 * which test caused it.
 */
import { join, relative } from "node:path";
import { beforeAll } from "vitest";
import { EXCHANGE_ORIGIN_ENV } from "../../emulator/exchanges";

const ROOT = join(__dirname, "..", "..");

// Vitest passes the fixture context first; the suite (the file, at the top level) comes second.
beforeAll(({}, suite) => {
  const file = "filepath" in suite ? suite.filepath : suite.file.filepath;
  process.env[EXCHANGE_ORIGIN_ENV] = relative(ROOT, file);
});
