/**
 * One emulator and one sandbox made with E2B's official SDK, per test file that checks the SDK
 * against the emulator: started before the file's tests, killed and closed after them.
 */
import { Sandbox, type ConnectionOpts } from "e2b";
import { afterAll, beforeAll } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";

export interface OfficialBench {
  emu: Emulator;
  /** What every SDK call takes to reach this emulator. */
  opts: ConnectionOpts;
  sandbox: Sandbox;
}

/** Registers the hooks; the returned object is filled in before the first test runs. */
export function useOfficialSandbox(): OfficialBench {
  const bench = {} as OfficialBench;
  beforeAll(async () => {
    bench.emu = await createEmulator();
    bench.opts = { apiKey: bench.emu.apiKey, apiUrl: bench.emu.apiUrl, sandboxUrl: bench.emu.sandboxUrl };
    bench.sandbox = await Sandbox.create("base", { ...bench.opts, timeoutMs: 120_000 });
  });
  afterAll(async () => {
    await bench.sandbox?.kill().catch(() => undefined);
    await bench.emu?.close();
  });
  return bench;
}

/** An emulator of the file's own, for tests that make their sandboxes themselves. */
export interface OfficialEmulator {
  emu: Emulator;
  /** Connection options; the domain makes the SDK's getHost(port) name the emulator. */
  opts: ConnectionOpts & { domain: string };
  /** Sandboxes to kill after the file's tests. */
  made: Sandbox[];
}

/** Registers the hooks; the returned object is filled in before the first test runs. */
export function useOfficialEmulator(): OfficialEmulator {
  const bench = { made: [] as Sandbox[] } as OfficialEmulator;
  beforeAll(async () => {
    bench.emu = await createEmulator();
    const { apiKey, apiUrl, sandboxUrl } = bench.emu;
    bench.opts = { apiKey, apiUrl, sandboxUrl, domain: `localhost:${new URL(apiUrl).port}` };
  });
  afterAll(async () => {
    await Promise.all(bench.made.map((s) => s.kill().catch(() => undefined)));
    await bench.emu?.close();
  });
  return bench;
}
