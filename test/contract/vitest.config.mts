import { fileURLToPath } from "node:url";
import { defineConfig, mergeConfig } from "vitest/config";
import base from "../../vitest.config.mjs";

// `npm test` runs with this config: the project's own (vitest.config.mts) plus the contract check
// of every emulator answer (global-setup.ts) and the naming of the test file behind each (origin.ts).
// A single `npx vitest run <file>` uses the plain config and skips the check.
const root = fileURLToPath(new URL("../..", import.meta.url));
export default mergeConfig(
  base,
  defineConfig({
    root,
    test: {
      globalSetup: ["test/contract/global-setup.ts"],
      setupFiles: ["test/contract/origin.ts"],
    },
  }),
);
