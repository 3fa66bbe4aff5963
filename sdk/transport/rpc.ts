/**
 * The one place that speaks Connect to a sandbox's in-sandbox API (envd). One transport per sandbox
 * host; interceptors add the headers every call needs; every ConnectError leaves here as a
 * SandboxError (see rpc-errors.ts).
 *
 * The codec is binary protobuf by default (`rpcCodec`, config.ts): command output then travels as
 * raw bytes rather than base64 inside JSON (a quarter fewer bytes on the wire), with no text encoding on
 * either side. envd serves both codecs: its handlers are connect-go's (`NewProcessHandler` and
 * `NewFilesystemHandler`, mounted in e2b-dev/infra packages/envd/internal/services/{process,
 * filesystem}/service.go with interceptors only), and connect-go v1.18.1 (envd's go.mod) registers
 * the proto and JSON codecs on every handler (handler.go, newHandlerConfig). `json` is what the
 * official SDK speaks. Errors are JSON under either codec (Connect: unary error bodies and the
 * end-of-stream message), so rpc-errors.ts reads them alike. HTTP/1.1 is what plain proxies pass.
 * Server streams in the binary codec (command output) are read by ./rpc-stream.ts, not connect-es,
 * through the same interceptors and over this SandboxRpc's own pool, closed by `close()`.
 */
import type { DescMessage, DescMethodServerStreaming, DescService, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { createClient, type CallOptions, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { resolveOptions, type ClientOptions, type RpcCodec } from "../config";
import type { SandboxError } from "../errors";
// The platform client's product token, so both halves of the sdk identify alike.
import { loopbackLookup } from "./loopback-lookup";
import { USER_AGENT } from "./user-agent";
import { toSandboxError } from "./rpc-errors";
import { BinaryStreams } from "./rpc-stream";
import { basicUserAuth, sandboxAddress, type SandboxAddress } from "./sandbox-host";

/** Seconds of silence after which envd sends a keepalive event on a stream (header `Keepalive-Ping-Interval`). */
export const KEEPALIVE_PING_INTERVAL_S = 50;

/** Which sandbox to talk to, and how. */
export interface SandboxTarget {
  /** The sandbox ID from create/get. */
  sandboxID: string;
  /** The sandbox's `envdAccessToken` (secure sandboxes only); sent as `X-Access-Token`. Never logged. */
  envdAccessToken?: string | null | undefined;
  /**
   * Domain and sandbox URL (env `E2B_DOMAIN`, `E2B_SANDBOX_URL`), `requestTimeoutMs` (default 60000),
   * the deadline of each unary call, and `rpcCodec` (default binary). No API key is needed here.
   */
  options?: ClientOptions | undefined;
  /** Connect interceptors run around every call, unary and streaming alike, after the sdk's own headers are set. */
  interceptors?: readonly Interceptor[] | undefined;
}

/** Per-call settings shared by every in-sandbox method. */
export interface RpcCallOptions {
  /** OS user the call acts as (`Authorization: Basic`); the sandbox's default user when omitted. */
  user?: string | undefined;
  /** Deadline in milliseconds, sent as `Connect-Timeout-Ms`; 0 means none. Default: `requestTimeoutMs`. */
  timeoutMs?: number | undefined;
  /** Aborts the call; the error then has code `aborted`. */
  signal?: AbortSignal | undefined;
}

/** A Connect connection to one sandbox. Share one between a ProcessClient and a FilesystemClient. */
export class SandboxRpc {
  readonly sandboxID: string;
  readonly address: SandboxAddress;
  /** Default deadline of unary calls, in milliseconds. */
  readonly requestTimeoutMs: number;
  /** The Connect codec of every call. */
  readonly codec: RpcCodec;
  readonly transport: Transport;
  readonly #token: string | undefined;
  readonly #clients = new Map<DescService, Client<DescService>>();
  readonly #streams: BinaryStreams;

  constructor(target: SandboxTarget) {
    const opts = resolveOptions(target.options ?? {});
    this.sandboxID = target.sandboxID;
    this.address = sandboxAddress(target.sandboxID, opts);
    this.requestTimeoutMs = opts.requestTimeoutMs;
    this.codec = opts.rpcCodec;
    this.#token = target.envdAccessToken ?? undefined;
    // One list for both paths, so a header or a check added here reaches every call.
    const interceptors = [headerInterceptor(this.address.headers, this.#token), ...(target.interceptors ?? [])];
    this.#streams = new BinaryStreams(interceptors);
    this.transport = createConnectTransport({
      baseUrl: this.address.baseUrl,
      httpVersion: "1.1",
      useBinaryFormat: this.codec === "binary",
      // No gzip (connect-node asks for it by default): the sandbox would compress every output chunk
      // and we would inflate it, a third more client CPU per MB streamed (bench/RESULTS.md, 2). The
      // official SDK does not ask for it either.
      acceptCompression: [],
      // `*.localhost` is loopback (./loopback-lookup.ts), as on the platform client's pool.
      nodeOptions: { lookup: loopbackLookup },
      interceptors,
    });
  }

  /** Closes the connections of the binary streams; streams under way end first. Unary calls use connect-node's agent. */
  close(): Promise<void> {
    return this.#streams.close();
  }

  /** A typed Connect client of `service` over this sandbox's transport, made once per service. */
  client<S extends DescService>(service: S): Client<S> {
    let client = this.#clients.get(service);
    if (!client) this.#clients.set(service, (client = createClient(service, this.transport)));
    return client as Client<S>;
  }

  /** Connect call options for `opts`: user header, deadline (default `requestTimeoutMs`), abort signal. */
  callOptions(opts: RpcCallOptions = {}): CallOptions {
    return {
      timeoutMs: opts.timeoutMs ?? this.requestTimeoutMs,
      signal: opts.signal,
      headers: opts.user ? { Authorization: basicUserAuth(opts.user) } : undefined,
    };
  }

  /** Runs one unary call named `what` (for messages); any failure becomes a SandboxError. */
  async unary<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw this.error(err, what);
    }
  }

  /**
   * A server-streaming call, as the typed client's, but in the binary codec read by ./rpc-stream.ts
   * (copy-free where it can be); in the JSON codec, connect-es's. Failures are left to `stream`.
   */
  serverStream<I extends DescMessage, O extends DescMessage>(
    method: DescMethodServerStreaming<I, O>,
    message: MessageInitShape<I>,
    call: CallOptions,
  ): AsyncIterable<MessageShape<O>> {
    if (this.codec !== "binary") {
      const client = this.client(method.parent) as unknown as Record<string, (m: MessageInitShape<I>, c: CallOptions) => AsyncIterable<MessageShape<O>>>;
      return client[method.localName]!(message, call);
    }
    const url = `${this.address.baseUrl}/${method.parent.typeName}/${method.name}`;
    return this.#streams.call(url, method, message, { headers: call.headers, timeoutMs: call.timeoutMs, signal: call.signal });
  }

  /** Passes a server stream through, turning any failure into a SandboxError. */
  async *stream<T>(what: string, events: AsyncIterable<T>): AsyncGenerator<T, void, undefined> {
    try {
      yield* events;
    } catch (err) {
      throw this.error(err, what);
    }
  }

  /** Maps `err` to a SandboxError naming this sandbox and `what`; the access token is scrubbed. */
  error(err: unknown, what: string): SandboxError {
    return toSandboxError(err, { sandboxID: this.sandboxID, baseUrl: this.address.baseUrl, what, secrets: [this.#token] });
  }

  /** Secrets a caller must scrub from anything it derives from this sandbox (command output, messages). */
  get secrets(): (string | undefined)[] {
    return [this.#token];
  }
}

/**
 * Builds a SandboxRpc unless one is given, so clients accept either. A shape check, not `instanceof`:
 * a serialized provider may hold a SandboxRpc from a second copy of this module.
 */
export function toRpc(target: SandboxTarget | SandboxRpc): SandboxRpc {
  return "transport" in target && typeof target.client === "function" ? target : new SandboxRpc(target);
}

/**
 * Headers of every call: routing (shared-URL form), the access token, the User-Agent, and on server
 * streams the keepalive interval. connect-es already sets `Connect-Protocol-Version: 1`, and so does
 * ./rpc-stream.ts.
 */
function headerInterceptor(routing: Record<string, string>, token: string | undefined): Interceptor {
  return (next) => async (req) => {
    for (const [name, value] of Object.entries(routing)) req.header.set(name, value);
    req.header.set("User-Agent", USER_AGENT);
    if (token) req.header.set("X-Access-Token", token);
    if (req.method.methodKind === "server_streaming") req.header.set("Keepalive-Ping-Interval", String(KEEPALIVE_PING_INTERVAL_S));
    return next(req);
  };
}
