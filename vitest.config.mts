import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// Tests talk to real local servers and real processes; e2e runs the real Pulumi engine, which is slow,
// so the timeouts are generous. Two projects, both file-parallel, sharing the workers: an e2e file
// starts its own emulator and backend, and its CLI runs mostly wait on the provider and the emulator,
// so two files at once use the 2 cores a CI machine has (e2e one file at a time: 1591 s for the suite
// and ~0.9 cores busy; two at once: 1057 s, every test passing, in the same fresh clone). What e2e files
// write is theirs: a stack name, a context folder, a checkout or a temp dir each (none shares one).
// `allowOnly: false`: a `.only` left in a file fails the run instead of silently skipping the rest.
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // vitest's default is one worker fewer than the cores: one on a 2-core CI machine, where the fast
    // files then ran one at a time (431 s of wall for 360 s of files at e2b7050). They mostly wait on
    // loopback servers and child processes: two at once took 238 s, every test passing.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ["default"],
    allowOnly: false,
    // The tests have no internet, and most build from `e2bdev/base`, which only Docker Hub has: their
    // emulators run templates on the host's system dirs (emulator/store/image-roots.ts). The image tests
    // pass `images: "registry"` and a loopback registry of their own.
    env: { SANDBOX_EMULATOR_IMAGES: "host" },
    projects: [
      { extends: true, test: { name: "fast", include: ["test/**/*.test.ts"], exclude: ["test/e2e/**"] } },
      // A test there runs several CLI commands (each bounded by the harness's own deadline): on a loaded
      // 2-core machine a preview and an up take well over the 60 s a unit test gets.
      { extends: true, test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], testTimeout: 300_000 } },
    ],
  },
});
