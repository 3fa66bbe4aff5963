/**
 * Fork through E2B's official SDK (`e2b`, unmodified), as its own suite uses it
 * (e2b-dev/E2B: packages/js-sdk/tests/sandbox/fork.test.ts): each fork is a new running sandbox
 * with the parent's files, environment and metadata, changed independently of it; the parent keeps
 * running; a killed parent is SandboxNotFoundError, a paused one a conflict, bad bounds a 400.
 */
import { Sandbox, SandboxError, SandboxNotFoundError } from "e2b";
import { describe, expect, it } from "vitest";
import { useOfficialSandbox } from "./official-helpers";

const bench = useOfficialSandbox();

describe("fork", () => {
  it("makes a running sandbox with the parent's files, independent of it; the parent keeps running", async () => {
    await bench.sandbox.files.write("/home/user/state.txt", "state before fork");
    const before = await Sandbox.getInfo(bench.sandbox.sandboxId, bench.opts);
    const forks = await bench.sandbox.fork();
    expect(forks).toHaveLength(1);
    const fork = forks[0];
    if (!(fork instanceof Sandbox)) throw new Error(`the fork failed: ${String(fork)}`);
    try {
      expect(fork.sandboxId).not.toBe(bench.sandbox.sandboxId);
      expect(await bench.sandbox.isRunning()).toBe(true);
      expect(await fork.isRunning()).toBe(true);
      expect(await fork.files.read("/home/user/state.txt")).toBe("state before fork");
      await fork.files.write("/home/user/state.txt", "modified in fork");
      expect(await bench.sandbox.files.read("/home/user/state.txt")).toBe("state before fork");
      // The parent keeps its expiry; the fork gets the API's default time to live (15 s).
      const after = await Sandbox.getInfo(bench.sandbox.sandboxId, bench.opts);
      expect(after.endAt).toEqual(before.endAt);
      const info = await Sandbox.getInfo(fork.sandboxId, bench.opts);
      expect(info.endAt.getTime() - info.startedAt.getTime()).toBe(15_000);
    } finally {
      await fork.kill();
    }
  });

  it("makes `count` forks with distinct IDs, each with the parent's environment and metadata", async () => {
    const parent = await Sandbox.create("base", { ...bench.opts, envs: { FROM_PARENT: "inherited" }, metadata: { team: "a" } });
    try {
      const forks = await Sandbox.fork(parent.sandboxId, { ...bench.opts, count: 2, timeoutMs: 60_000 });
      const sandboxes = forks.filter((f): f is Sandbox => f instanceof Sandbox);
      try {
        expect(sandboxes).toHaveLength(2);
        expect(new Set(sandboxes.map((s) => s.sandboxId)).size).toBe(2);
        expect(sandboxes.map((s) => s.sandboxId)).not.toContain(parent.sandboxId);
        for (const fork of sandboxes) {
          expect((await fork.commands.run('echo "$FROM_PARENT"')).stdout).toBe("inherited\n");
          const info = await Sandbox.getInfo(fork.sandboxId, bench.opts);
          expect(info.metadata).toEqual({ team: "a" });
          expect(info.endAt.getTime() - info.startedAt.getTime()).toBe(60_000);
        }
      } finally {
        await Promise.all(sandboxes.map((s) => s.kill()));
      }
    } finally {
      await parent.kill();
    }
  });

  it("of a killed sandbox fails with SandboxNotFoundError, of a paused one with a 409", async () => {
    const killed = await Sandbox.create("base", bench.opts);
    await killed.kill();
    await expect(killed.fork()).rejects.toThrow(SandboxNotFoundError);
    const paused = await Sandbox.create("base", bench.opts);
    try {
      await paused.pause();
      const err = await paused.fork().then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(SandboxError);
      expect((err as Error).message).toBe(`409: Sandbox '${paused.sandboxId}' is paused and cannot be forked; resume it first`);
    } finally {
      await paused.kill();
    }
  });

  it("with a count outside 1..100 or a timeout of 0 is a 400 (this SDK sends them as given)", async () => {
    const id = bench.sandbox.sandboxId;
    const refusal = (opts: { count?: number; timeoutMs?: number }) => Sandbox.fork(id, { ...bench.opts, ...opts }).then(() => undefined, (e: unknown) => (e as Error).message);
    expect(await refusal({ count: 0 })).toBe('400: validation error: request body has an error: Error at "/count": number must be at least 1');
    expect(await refusal({ count: 101 })).toBe('400: validation error: request body has an error: Error at "/count": number must be at most 100');
    expect(await refusal({ timeoutMs: 0 })).toBe("400: Timeout must be greater than 0");
    expect(await refusal({ timeoutMs: 25 * 3_600_000 })).toBe("400: Timeout cannot be greater than 24 hours");
  });
});
