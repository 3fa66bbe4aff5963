/**
 * Starts the project's own emulator CLI (bin/sandbox-emulator.js, from dist/) on a free loopback
 * port, as a new user would, and gives back the three variables a new user sets to point the
 * official SDKs at it. Its request log goes to a file: it is the first place to look at a failure.
 */
import { spawn } from "node:child_process";
import { createWriteStream, existsSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** Starts the emulator; resolves once its ready line is read, rejects if it exits first. */
export function startEmulator(root, logPath) {
  const cli = join(root, "bin", "sandbox-emulator.js");
  if (!existsSync(join(root, "dist", "emulator", "cli.js"))) {
    throw new Error("dist/emulator/cli.js is missing: run `npm run build` first");
  }
  // `--images host`: the suites' templates name Docker Hub's images (e2bdev/base, ubuntu), which a
  // machine without internet cannot pull; they run on this machine's system dirs, as before images.
  const child = spawn(process.execPath, [cli, "--host", "127.0.0.1", "--port", "0", "--images", "host"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stderr.pipe(createWriteStream(logPath));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    child.once("exit", (code) => reject(new Error(`the emulator exited (${code}) before it was ready; see ${logPath}`)));
    lines.once("line", (line) => {
      const ready = JSON.parse(line);
      resolve({
        env: { E2B_API_URL: ready.apiUrl, E2B_SANDBOX_URL: ready.sandboxUrl, E2B_API_KEY: ready.apiKey },
        isolation: ready.isolation,
        stop: () => stopChild(child),
      });
    });
  });
}

function stopChild(child) {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/**
 * The environment of a suite: this process's, less every E2B_ variable (E2B_DEBUG, E2B_DOMAIN,
 * an access token...) and CI (the JS suite demands a built bundle under CI), plus the emulator's three.
 */
export function suiteEnv(emulatorEnv) {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("E2B_") || name === "CI") delete env[name];
  return { ...env, ...emulatorEnv };
}
