/**
 * Test helpers for the emulator's platform API: a bare fetch client (the sdk is tested elsewhere;
 * these tests speak HTTP directly) and polling helpers that wait for a state, never for a time.
 */
import { afterAll, beforeAll } from "vitest";
import { createEmulator, type Emulator, type EmulatorOptions } from "../../emulator";

export type Auth = "key" | "token" | "none" | Record<string, string>;

export interface Res {
  status: number;
  // Tests read arbitrary fields of JSON answers.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  headers: Headers;
}

/** A fast emulator for tests: builds take `buildDelayMs` (default 60 ms). */
export function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  return createEmulator({ buildDelayMs: 60, ...options });
}

/** Handles of the emulator a test file shares; filled in by `beforeAll`. */
export interface TestEmulator {
  emu: Emulator;
  c: Client;
}

/** Starts an emulator before the file's tests (see `startEmulator`) and closes it after them. */
export function useEmulator(options: EmulatorOptions = {}): TestEmulator {
  const handle = {} as TestEmulator;
  beforeAll(async () => {
    handle.emu = await startEmulator(options);
    handle.c = client(handle.emu);
  });
  afterAll(() => handle.emu?.close());
  return handle;
}

export interface Client {
  call(method: string, path: string, body?: unknown, auth?: Auth): Promise<Res>;
  get(path: string, auth?: Auth): Promise<Res>;
  post(path: string, body?: unknown, auth?: Auth): Promise<Res>;
  patch(path: string, body?: unknown, auth?: Auth): Promise<Res>;
  del(path: string, auth?: Auth): Promise<Res>;
}

export function client(emu: Emulator): Client {
  const call = async (method: string, path: string, body?: unknown, auth: Auth = "key"): Promise<Res> => {
    const headers: Record<string, string> = authHeaders(emu, auth);
    let payload: string | undefined;
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      payload = typeof body === "string" ? body : JSON.stringify(body);
    }
    const res = await fetch(`${emu.apiUrl}${path}`, { method, headers, body: payload });
    const text = await res.text();
    return { status: res.status, body: text === "" ? undefined : JSON.parse(text), headers: res.headers };
  };
  return {
    call,
    get: (path, auth) => call("GET", path, undefined, auth),
    post: (path, body, auth) => call("POST", path, body, auth),
    patch: (path, body, auth) => call("PATCH", path, body, auth),
    del: (path, auth) => call("DELETE", path, undefined, auth),
  };
}

function authHeaders(emu: Emulator, auth: Auth): Record<string, string> {
  if (auth === "key") return { "x-api-key": emu.apiKey };
  if (auth === "token") return { authorization: `Bearer ${emu.accessToken}` };
  if (auth === "none") return {};
  return { ...auth };
}

/** Polls `probe` every 10 ms until it returns a value other than undefined; fails after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The real service's 404 message for a sandbox that does not exist (or is not the caller's). */
export const sandboxNotFound = (id: string) => `Sandbox "${id}" doesn't exist or you don't have access to it`;

/** Creates a sandbox of the `base` template (plus `body`) and returns its ID; fails unless 201. */
export async function createSandbox(c: Client, body: Record<string, unknown> = {}): Promise<string> {
  const res = await c.post("/sandboxes", { templateID: "base", ...body });
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.sandboxID;
}

export const DOCKERFILE = "FROM ubuntu:22.04\n# tools\nRUN apt-get update && \\\n    apt-get install -y curl\nWORKDIR /app\nCOPY . /app\n";

/** Requests a v1 build (new template, or a rebuild when `templateID` is given) and returns the 202 body. */
export async function requestBuild(c: Client, body: Record<string, unknown>, templateID?: string): Promise<{ templateID: string; buildID: string }> {
  const res = await c.post(templateID ? `/templates/${templateID}` : "/templates", body, "token");
  if (res.status !== 202) throw new Error(`build request answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Polls the build status until it is `ready` or `error`; returns the final TemplateBuildInfo. */
export function buildFinished(c: Client, templateID: string, buildID: string): Promise<Res["body"]> {
  return waitFor(`build ${buildID}`, async () => {
    const res = await c.get(`/templates/${templateID}/builds/${buildID}/status`);
    return res.body.status === "ready" || res.body.status === "error" ? res.body : undefined;
  });
}

/** A template with one ready build, named `alias` when given. */
export async function readyTemplate(c: Client, alias?: string): Promise<string> {
  const { templateID, buildID } = await requestBuild(c, { dockerfile: DOCKERFILE, ...(alias ? { alias } : {}) });
  const info = await buildFinished(c, templateID, buildID);
  if (info.status !== "ready") throw new Error(`build failed: ${JSON.stringify(info.reason)}`);
  return templateID;
}
