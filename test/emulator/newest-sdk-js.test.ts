/**
 * Today's service (issue 39) through the official JS SDK, npm `e2b` 2.51.0 (the devDependency,
 * unmodified), for what it reaches that no other file drives through it. The rest of what 2.51 has
 * is driven in newest-sandbox-fields.test.ts (`pause({keepMemory})`, `onTimeout.keepMemory`,
 * `connect({onResume: "reboot"})`, `network.httpsPorts`) and template-routes-newest.test.ts
 * (`minFreeDiskMb`, the upload headers, tags); everything 2.51 lacks, through PyPI e2b 2.63.0 in
 * newest-sdk-python.test.ts.
 *
 * 2.51 has no `dnsServers`, `requireHealthyGuest`, `pauseMode`, `envdUnresponsiveAtPause`,
 * `egressProxy.tls`, `Idempotency-Key`, `Should-Retry` (it repeats only a 429 with `Retry-After`),
 * default templates, tag history routes, and no `EntryInfo.is_symlink` (it reads a link's `type`).
 */
import { Sandbox, SandboxError, ServiceBusyError, type ConnectionOpts } from "e2b";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Exchange } from "../../emulator/exchanges";
import { Faults, type FaultKind } from "../../emulator/faults";
import { useEmulator } from "./platform-helpers";

const exchanges: Exchange[] = [];
const env = useEmulator({ onExchange: (x) => exchanges.push(x) });
let opts: ConnectionOpts;
const made: Sandbox[] = [];

beforeAll(() => {
  opts = { apiKey: env.emu.apiKey, apiUrl: env.emu.apiUrl, sandboxUrl: env.emu.sandboxUrl };
});
afterAll(async () => {
  await Promise.all(made.map((s) => s.kill().catch(() => undefined)));
});

async function sandbox(extra: Parameters<typeof Sandbox.create>[1] = {}): Promise<Sandbox> {
  const s = await Sandbox.create("base", { ...opts, ...extra });
  made.push(s);
  return s;
}

/** A fault seed whose first decisions refuse as `want` says (undefined: let through). */
function seedFor(settings: { rate503?: number; rate429?: number }, want: (FaultKind | undefined)[]): number {
  for (let seed = 1; seed < 100_000; seed++) {
    const faults = new Faults({ ...settings, faultSeed: seed });
    if (want.every((w) => faults.decide().before === w)) return seed;
  }
  throw new Error("no seed found");
}

const creates = (since: number) => env.emu.calls(since).filter((c) => c.method === "POST" && c.path === "/v2/sandboxes");

describe("creates", () => {
  test("no timeoutMs: the SDK sends no timeout nor `secure`, and the sandbox lives 300 s", async () => {
    const since = exchanges.length;
    const s = await sandbox();
    const body = exchanges.slice(since).find((x) => x.method === "POST" && x.path === "/v2/sandboxes")?.requestBody;
    expect(body).toEqual({ templateID: "base" });
    const info = await Sandbox.getInfo(s.sandboxId, opts);
    expect(info.endAt.getTime() - info.startedAt.getTime()).toBe(300_000);
    expect((await s.commands.run("echo up")).stdout).toBe("up\n");
  });

  test("an egressProxy meets the team's gate: a SandboxError with the emulator's 403", async () => {
    const err = await sandbox({ network: { egressProxy: { address: "proxy.example.com:1080" } } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxError);
    expect((err as SandboxError).message).toBe("403: Egress proxy (egressProxy) is not enabled for this team.");
  });
});

describe("retries", () => {
  test("a 429 with Retry-After: 1 is waited out for a second and sent again", async () => {
    const since = env.emu.calls().at(-1)?.seq ?? 0;
    env.emu.setFaults({ rate429: 0.5, faultSeed: seedFor({ rate429: 0.5 }, ["rate429", undefined]) });
    const s = await sandbox({ timeoutMs: 60_000 }).finally(() => env.emu.setFaults({}));
    const sentAt = creates(since);
    expect(sentAt.map((c) => [c.status, c.fault])).toEqual([[429, "rate429"], [201, undefined]]);
    expect(Date.parse(sentAt[1]!.time) - Date.parse(sentAt[0]!.time)).toBeGreaterThanOrEqual(1000);
    expect((await env.c.get(`/sandboxes/${s.sandboxId}`)).status).toBe(200);
  });

  test("an unmarked 503 is not sent again by 2.51 (it predates Should-Retry): ServiceBusyError with the emulator's message", async () => {
    const since = env.emu.calls().at(-1)?.seq ?? 0;
    env.emu.setFaults({ rate503: 1 });
    const err = await sandbox({ timeoutMs: 60_000 }).catch((e: unknown) => e).finally(() => env.emu.setFaults({}));
    expect(err).toBeInstanceOf(ServiceBusyError);
    expect((err as Error).message).toBe("Service temporarily unavailable, please retry - Service Unavailable");
    expect(creates(since).map((c) => [c.status, c.fault])).toEqual([[503, "rate503"]]);
  });
});

describe("envd", () => {
  test("a link is read as its target's type with symlinkTarget: the newest envd's is_symlink leaves 2.51's reading as it was", async () => {
    const s = await sandbox({ timeoutMs: 60_000 });
    await s.commands.run("mkdir -p ~/links/dir && echo hi > ~/links/file.txt && ln -s ~/links/file.txt ~/links/to-file && ln -s ~/links/dir ~/links/to-dir");
    const entries = await s.files.list("/home/user/links");
    expect(entries.map((e) => [e.name, e.type, e.symlinkTarget])).toEqual([
      ["dir", "dir", undefined],
      ["file.txt", "file", undefined],
      ["to-dir", "dir", "/home/user/links/dir"],
      ["to-file", "file", "/home/user/links/file.txt"],
    ]);
    expect((await s.files.getInfo("/home/user/links/to-file")).type).toBe("file");
  });
});
