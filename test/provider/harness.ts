/**
 * Helpers for calling the provider's methods directly, as the dynamic-provider host calls them after
 * `configure`, against an emulator in this process. Each test file gets its own copy of the runtime's
 * module state (vitest isolates files), so configuring here touches no other file.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { createEmulator, type Emulator, type EmulatorOptions } from "../../emulator";
import * as runtime from "../../provider/runtime/index";
import type { ResourceKind } from "../../provider/kinds";
import { PlatformClient } from "../../sdk/platform/client";
import type { VolumeContent } from "../../sdk/volume-content/client";

export { runtime };

/** The `__provider` text the engine would pass; the provider must copy it into partial-creation errors. */
export const PROVIDER_TEXT = "exports.handler = () => ({}); // stands in for the serialized handle";

export interface TestEmulator extends Emulator {
  /** Called with each request line the emulator logs (`METHOD path status ms [fault=…]`), as it is logged. */
  onRequest(listener: (line: string) => void): () => void;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<TestEmulator> {
  const listeners = new Set<(line: string) => void>();
  const emu = await createEmulator({ buildDelayMs: 50, ...options, log: (line) => listeners.forEach((l) => l(line)) });
  return Object.assign(emu, {
    onRequest(listener: (line: string) => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  });
}

/** An emulator for the calling test file, with the runtime configured for it; a getter, as it starts in beforeAll. */
export function emulatorForFile(options: EmulatorOptions = {}): () => TestEmulator {
  let emu: TestEmulator | undefined;
  beforeAll(async () => {
    emu = await startEmulator(options);
    configureFor(emu);
  });
  afterAll(async () => {
    await emu?.close();
  });
  return () => emu!;
}

/** Stack config as the host hands it to `configure`: `sandbox:*` keys, here pointing at the emulator. */
export function stackConfig(emu: Emulator, omit: string[] = []): { get(key: string): string | undefined } {
  const all: Record<string, string> = {
    "sandbox:apiKey": emu.apiKey,
    "sandbox:accessToken": emu.accessToken,
    "sandbox:apiUrl": emu.apiUrl,
    "sandbox:sandboxUrl": emu.sandboxUrl,
  };
  for (const key of omit) delete all[key];
  return { get: (key) => all[key] };
}

export function configureFor(emu: Emulator, omit: string[] = []): void {
  runtime.configure({ config: stackConfig(emu, omit) });
}

type Obj = Record<string, unknown>;

/**
 * `check` as the host calls it, failing the test on any failure; returns the checked inputs with
 * `__provider` put back, as the host does before the engine passes them to create/update.
 */
export async function checked(kind: ResourceKind, news: Obj, olds: Obj = {}): Promise<Obj> {
  const out = await runtime.check(kind, olds, { __provider: PROVIDER_TEXT, ...news });
  expect(out.failures, JSON.stringify(out.failures)).toBeUndefined();
  return { ...out.inputs, __provider: PROVIDER_TEXT };
}

/**
 * Failure reasons of a `check` that must fail. No failure names a property: the engine would print
 * that input's value, which may be a secret (provider/check.ts).
 */
export async function checkReasons(kind: ResourceKind, news: Obj, olds: Obj = {}): Promise<string[]> {
  const out = await runtime.check(kind, olds, news);
  expect(out.inputs).toBeUndefined();
  expect((out.failures ?? []).map((f) => f.property).filter(Boolean)).toEqual([]);
  return (out.failures ?? []).map((f) => f.reason);
}

/** The error a call rejected with (fails the test when it resolved). */
export async function rejection(promise: Promise<unknown>): Promise<Error & { id?: string; properties?: Obj; reasons?: string[] }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { id?: string; properties?: Obj; reasons?: string[] };
  }
  throw new Error("expected the call to fail, but it succeeded");
}

export const lastSeq = (emu: Emulator): number => emu.calls().at(-1)?.seq ?? 0;

/** Requests since `seq` as `METHOD /path` (query dropped), optionally without reads. */
export function callsSince(emu: Emulator, seq: number, opts: { writesOnly?: boolean } = {}): string[] {
  return emu
    .calls(seq)
    .filter((c) => !opts.writesOnly || c.method !== "GET")
    .map((c) => `${c.method} ${c.path.split("?")[0]}`);
}

/** The service's REST API, for changes made behind the provider's back. */
export function rest(emu: Emulator, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${emu.apiUrl}${path}`, {
    method,
    headers: { "X-API-Key": emu.apiKey, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/**
 * Makes the service handle exactly one request (`target`, e.g. "POST /volumes") and then drop the
 * connection without answering: the create happened, the caller cannot know. The fault is switched on
 * right after the request `armAfter` is logged (or at once), and off as soon as `target` is logged, so
 * the look-up the provider makes next is answered. Logging happens before the client can see the
 * answer or the dropped socket, so the switching is not a race.
 */
export function loseAnswerTo(emu: TestEmulator, target: string, armAfter?: string): () => void {
  const is = (line: string, request: string) => line.startsWith(`${request} `) || line.startsWith(`${request}?`);
  let armed = armAfter === undefined;
  if (armed) emu.setFaults({ dropAfterRate: 1 });
  const stop = emu.onRequest((line) => {
    if (armed && is(line, target)) {
      emu.setFaults({});
      stop();
    } else if (!armed && armAfter !== undefined && is(line, armAfter)) {
      armed = true;
      emu.setFaults({ dropAfterRate: 1 });
    }
  });
  return () => {
    stop();
    emu.setFaults({});
  };
}

/** Runs `fn` with the content API of the volume `volumeID`, as a user reaches it with the sdk. */
export async function withVolumeContent<T>(emu: Emulator, volumeID: string, fn: (files: VolumeContent) => Promise<T>): Promise<T> {
  const sdk = new PlatformClient({ apiKey: emu.apiKey, apiUrl: emu.apiUrl });
  const files = sdk.volumes.content(await sdk.volumes.get(volumeID));
  try {
    return await fn(files);
  } finally {
    await files.close();
    await sdk.close();
  }
}

/** A volume as a run killed during its create leaves it: made, and marked pending with that run's nonce. */
export async function volumeLeftByKilledRun(emu: Emulator, name: string, nonce: string): Promise<string> {
  const { volumeID } = (await (await rest(emu, "POST", "/volumes", { name })).json()) as { volumeID: string };
  await withVolumeContent(emu, volumeID, (files) => files.upload("/.pulumi-sandbox-pending", new TextEncoder().encode(`${nonce}\n`)));
  return volumeID;
}

/**
 * Fails on any `undefined` inside outputs: the host converts them with Struct.fromJavaScript, which
 * throws on one ("Unexpected struct type."), failing a create after the resource was made.
 */
export function expectPlainJSON(value: unknown, path = "outputs"): void {
  expect(value, `${path} is undefined`).not.toBeUndefined();
  if (value === null || typeof value !== "object") return;
  for (const [k, v] of Object.entries(value)) expectPlainJSON(v, Array.isArray(value) ? `${path}[${k}]` : `${path}.${k}`);
}

/**
 * What the provider prints for the engine's log (its stderr) during each test of the calling file,
 * still passed through: `text()` is what the current test printed so far, `clear()` starts over.
 */
export function capturedStderr(): { text(): string; clear(): void } {
  let printed: string[] = [];
  const realWrite = process.stderr.write.bind(process.stderr);
  beforeEach(() => {
    printed = [];
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      printed.push(String(chunk));
      return (realWrite as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stderr.write;
  });
  afterEach(() => {
    process.stderr.write = realWrite;
  });
  return { text: () => printed.join(""), clear: () => void (printed = []) };
}
