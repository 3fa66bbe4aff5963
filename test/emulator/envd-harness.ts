/**
 * Test bench for the emulator's envd on its own: a real SandboxDirectory (the seam the platform
 * half implements; here a map the test fills), a real node:http server on 127.0.0.1:0 calling the
 * handler, and Connect clients over real HTTP. No part of envd is replaced.
 */
import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { createServer, request, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { createEnvdHandler, type EnvdHandler } from "../../emulator/envd";
import type { SandboxLimits } from "../../emulator/envd/limits";
import { exchangeObserver } from "../../emulator/exchanges";
import type { SandboxDirectory, SandboxRuntime } from "../../emulator/types";
import { Filesystem } from "../../sdk/gen/filesystem/filesystem_pb";
import { Process, type ProcessEvent, type ProcessEvent_EndEvent } from "../../sdk/gen/process/process_pb";

export interface SandboxOptions {
  secure?: boolean;
  envVars?: Record<string, string>;
  /** Mount paths of volumes to create (each gets its own host dir). */
  volumes?: string[];
}

export interface ClientOptions {
  token?: string;
  /** Value for `Authorization: Basic base64("<user>:")`. */
  user?: string;
  binary?: boolean;
  headers?: Record<string, string>;
}

export interface Bench {
  url: string;
  dataDir: string;
  envd: EnvdHandler;
  /** Creates a running sandbox with `home/user` in its root. */
  sandbox(id: string, opts?: SandboxOptions): Promise<SandboxRuntime>;
  /** Marks a sandbox stopped, as the platform does on kill, pause or expiry. */
  stop(id: string): void;
  process(sandboxID: string, opts?: ClientOptions): Client<typeof Process>;
  filesystem(sandboxID: string, opts?: ClientOptions): Client<typeof Filesystem>;
  close(): Promise<void>;
}

function headersFor(sandboxID: string, opts: ClientOptions): Interceptor {
  return (next) => (req) => {
    req.header.set("E2b-Sandbox-Id", sandboxID);
    if (opts.token !== undefined) req.header.set("X-Access-Token", opts.token);
    if (opts.user !== undefined) req.header.set("Authorization", `Basic ${Buffer.from(`${opts.user}:`).toString("base64")}`);
    for (const [k, v] of Object.entries(opts.headers ?? {})) req.header.set(k, v);
    return next(req);
  };
}

/** Starts a bench; call `close()` in afterAll. */
export async function startBench(options: { exitRetentionMs?: number; limits?: Partial<SandboxLimits> } = {}): Promise<Bench> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "envd-test-"));
  const running = new Map<string, SandboxRuntime>();
  const listeners: ((id: string) => void)[] = [];
  const directory: SandboxDirectory = {
    running: (id) => running.get(id),
    allRunning: () => [...running.values()],
    onStopped: (listener) => void listeners.push(listener),
  };
  // The env's exchange observer (set in `npm test`) holds these answers to envd's spec too.
  const envd = createEnvdHandler({ directory, ...options, onExchange: exchangeObserver(undefined) });
  const server: Server = createServer((req, res) => {
    if (envd.matches(req)) return envd.handle(req, res);
    res.writeHead(404).end("not an in-sandbox request");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const transport = (sandboxID: string, opts: ClientOptions = {}) =>
    createConnectTransport({ baseUrl: url, httpVersion: "1.1", useBinaryFormat: opts.binary ?? false, interceptors: [headersFor(sandboxID, opts)] });
  return {
    url,
    dataDir,
    envd,
    async sandbox(id, opts = {}) {
      const rootDir = path.join(dataDir, "sandboxes", id);
      await mkdir(path.join(rootDir, "home", "user"), { recursive: true });
      const volumeMounts = [];
      for (const mountPath of opts.volumes ?? []) {
        const hostDir = path.join(dataDir, "volumes", `${id}${mountPath.replaceAll("/", "_")}`);
        await mkdir(hostDir, { recursive: true });
        await mkdir(path.dirname(path.join(rootDir, mountPath)), { recursive: true });
        await symlink(hostDir, path.join(rootDir, mountPath));
        volumeMounts.push({ name: path.basename(mountPath), path: mountPath, hostDir });
      }
      const runtime: SandboxRuntime = {
        sandboxID: id,
        templateID: "harness-template",
        secure: opts.secure ?? false,
        envdAccessToken: opts.secure ? `tok-${id}-secret` : null,
        rootDir,
        homePath: "/home/user",
        // This bench drives envd alone, over host dirs: the unisolated mode (isolation has its own tests).
        isolation: { mode: "none", reason: "envd harness" },
        volumeMounts,
        envVars: opts.envVars ?? {},
      };
      running.set(id, runtime);
      return runtime;
    },
    stop(id) {
      running.delete(id);
      for (const listener of listeners) listener(id);
    },
    process: (sandboxID, opts) => createClient(Process, transport(sandboxID, opts)),
    filesystem: (sandboxID, opts) => createClient(Filesystem, transport(sandboxID, opts)),
    async close() {
      await envd.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Collects a Start/Connect stream into its events (as the oneof cases). */
export async function collect(stream: AsyncIterable<{ event?: ProcessEvent }>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const msg of stream) if (msg.event) out.push(msg.event.event);
  return out;
}

/** A stream whose start event was read: the pid, and the rest of its events on demand. */
export interface Started {
  pid: number;
  it: AsyncIterator<{ event?: ProcessEvent }>;
  /** Reads the remaining events to the end of the stream. */
  rest(): Promise<Event[]>;
}

/** Reads the first event of a Start/Connect stream, which must be `start`. */
export async function started(stream: AsyncIterable<{ event?: ProcessEvent }>): Promise<Started> {
  const it = stream[Symbol.asyncIterator]();
  const first = (await it.next()).value?.event?.event;
  if (first?.case !== "start") throw new Error(`expected a start event, got ${first?.case}`);
  return { pid: first.value.pid, it, rest: () => collect({ [Symbol.asyncIterator]: () => it }) };
}

/** One process event as its oneof case. */
export type Event = ProcessEvent["event"];

/** Concatenated text of one output kind in collected events. */
export function textOf(events: Event[], kind: "stdout" | "stderr" | "pty"): string {
  let text = "";
  for (const e of events) {
    if (e.case === "data" && e.value.output.case === kind) text += Buffer.from(e.value.output.value).toString("utf8");
  }
  return text;
}

/** The end event of collected events. */
export function endOf(events: Event[]): ProcessEvent_EndEvent | undefined {
  const last = events.at(-1);
  return last?.case === "end" ? last.value : undefined;
}

/** One Connect envelope: flags (0x02 = end of stream) and its payload. */
export interface Envelope {
  flags: number;
  data: Buffer;
}

/** Sends a raw request to the bench and returns the response without reading its body. */
export function rawRequest(bench: Bench, opts: { path: string; headers: Record<string, string>; body: Buffer | string }): Promise<IncomingMessage> {
  const url = new URL(bench.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: opts.path, method: "POST", headers: opts.headers }, resolve);
    req.on("error", reject);
    req.end(opts.body);
  });
}

/** Wraps a JSON message in a Connect envelope (streaming requests are enveloped too). */
export function envelope(message: unknown): Buffer {
  const json = Buffer.from(JSON.stringify(message));
  const head = Buffer.alloc(5);
  head.writeUInt32BE(json.length, 1);
  return Buffer.concat([head, json]);
}

/** Splits a streaming response body into envelopes, reading only as fast as the caller pulls. */
export async function* envelopes(body: AsyncIterable<Buffer>): AsyncGenerator<Envelope> {
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of body) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 5) {
      const size = pending.readUInt32BE(1);
      if (pending.length < 5 + size) break;
      yield { flags: pending[0] ?? 0, data: pending.subarray(5, 5 + size) };
      pending = pending.subarray(5 + size);
    }
  }
}

/** The ConnectError a call rejects with; fails the test if it resolves or throws something else. */
export async function rejection(p: Promise<unknown>): Promise<ConnectError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ConnectError)) throw new Error(`expected a ConnectError, got ${String(err)}`);
  return err;
}
