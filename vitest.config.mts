import { defineConfig } from "vitest/config";

// Tests talk to real local servers and real processes; e2e runs the real Pulumi engine, which is slow,
// so the timeouts are generous and e2e files run one at a time (each starts its own emulator).
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    reporters: ["default"],
  },
});
