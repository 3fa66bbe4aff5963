/**
 * A kill through the official SDK (`e2b`, unmodified) returns once the process is gone: a `kill -0`
 * of its pid right after `commands.kill` or `pty.kill` fails, as the SDK's own tests expect
 * (e2b-dev/E2B: packages/js-sdk/tests/sandbox/commands/kill.test.ts, pty/kill.test.ts). Each case
 * runs several times, since a zombie left behind is a race the first try may win.
 */
import { CommandExitError } from "e2b";
import { describe, expect, it } from "vitest";
import { useOfficialSandbox } from "./official-helpers";

const bench = useOfficialSandbox();
const TRIES = 5;

describe("kill", () => {
  it("commands.kill: the pid is gone when it returns, children included", async () => {
    for (let i = 0; i < TRIES; i++) {
      const cmd = await bench.sandbox.commands.run("sleep 30 & sleep 30", { background: true });
      expect(await bench.sandbox.commands.kill(cmd.pid)).toBe(true);
      const probe = await bench.sandbox.commands.run(`kill -0 ${cmd.pid}`).then(() => undefined, (e: unknown) => e);
      expect(probe).toBeInstanceOf(CommandExitError);
      expect((probe as CommandExitError).stderr).toContain("No such process");
    }
    const left = await bench.sandbox.commands.run("pgrep -c -f '^sleep 30' || true");
    expect(left.stdout.trim()).toBe("0");
  });

  it("pty.kill: the terminal's shell is gone when it returns", async () => {
    for (let i = 0; i < TRIES; i++) {
      const term = await bench.sandbox.pty.create({ cols: 80, rows: 24, onData: () => undefined });
      expect(await bench.sandbox.pty.kill(term.pid)).toBe(true);
      const probe = await bench.sandbox.commands.run(`kill -0 ${term.pid}`).then(() => undefined, (e: unknown) => e);
      expect(probe).toBeInstanceOf(CommandExitError);
    }
  });

  it("a pid that is not running answers false", async () => {
    expect(await bench.sandbox.commands.kill(999_999)).toBe(false);
  });
});
