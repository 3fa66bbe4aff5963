/**
 * A server stream (process Start and Connect) in Connect's binary protocol, read straight off undici.
 * Command output is nearly all of what these streams carry, one event per 32 KiB that envd reads, and
 * connect-es's reader copies each envelope that straddles two socket reads, then decodes through its
 * async-iterable plumbing. This reader cuts envelopes out of the socket's chunks as views when one
 * lies within a chunk, and copies only the straddling ones; the chunks themselves are taken as they
 * arrived (./readable-chunks.ts). Bench 2 shows the client's CPU for 200 MB against bare Connect's.
 *
 * It keeps Connect's semantics, so rpc-errors.ts maps its failures as it maps connect-es's: a non-200
 * answer is `HTTP <status>` with the code of that status (the body unread), the end-of-stream message's
 * error is thrown as the ConnectError it encodes, the deadline is `Connect-Timeout-Ms` and also a local
 * timer (deadline_exceeded), and an aborted signal is `canceled`. Unary calls and the JSON codec stay
 * on connect-es.
 *
 * It is the SandboxRpc's own path, as connect-es's transport is: its requests go through the
 * SandboxRpc's interceptors (the same list its connect-es transport runs, so the routing, token and
 * User-Agent headers come from one place), and over the SandboxRpc's own keep-alive pool, opened with
 * it and closed by its `close()`, never undici's global one.
 */
import { create, fromBinary, toBinary, type DescMessage, type DescMethodServerStreaming, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createContextValues, type CallOptions, type Interceptor, type StreamRequest, type StreamResponse } from "@connectrpc/connect";
import { createAsyncIterable } from "@connectrpc/connect/protocol";
import { codeFromHttpStatus, endStreamFlag, endStreamFromJson } from "@connectrpc/connect/protocol-connect";
import { Agent, request, type Dispatcher } from "undici";
import type { Readable } from "node:stream";
import { chunksOf } from "./readable-chunks";
import { EnvelopeCutter } from "./envelopes";
import { loopbackLookup } from "./loopback-lookup";

export interface StreamCall {
  /** `Connect-Timeout-Ms`; 0 or absent: none. */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /** The caller's headers; the interceptors add theirs. */
  headers?: CallOptions["headers"];
}

/** What a stream's reading left behind, for the cleanup when the consumer stops. */
interface Opened {
  body?: Readable;
  ended: boolean;
}

/** The binary server streams of one SandboxRpc: its interceptors, and its own connection pool. */
export class BinaryStreams {
  // The keep-alive of the platform client's pool (http.ts): an idle socket is let go after 4 s.
  readonly #agent = new Agent({ keepAliveTimeout: 4_000, connect: { lookup: loopbackLookup } });

  constructor(private readonly interceptors: readonly Interceptor[]) {}

  /** Calls the server-streaming `method` at `url` and yields its messages. */
  async *call<I extends DescMessage, O extends DescMessage>(
    url: string,
    method: DescMethodServerStreaming<I, O>,
    message: MessageInitShape<I>,
    call: StreamCall,
  ): AsyncGenerator<MessageShape<O>, void, undefined> {
    const deadline = new AbortController();
    const timer = call.timeoutMs
      ? setTimeout(() => deadline.abort(new ConnectError("the operation timed out", Code.DeadlineExceeded)), call.timeoutMs)
      : undefined;
    const signal = call.signal ? AbortSignal.any([call.signal, deadline.signal]) : deadline.signal;
    const stopped = (err: unknown): ConnectError => {
      if (deadline.signal.aborted) return deadline.signal.reason as ConnectError;
      if (call.signal?.aborted) return new ConnectError(String((call.signal.reason as Error | undefined)?.message ?? "the operation was aborted"), Code.Canceled, undefined, undefined, err);
      return ConnectError.from(err, Code.Unavailable);
    };
    const opened: Opened = { ended: false };
    try {
      const req = streamRequest(url, method, message, call, signal);
      // As connect-es applies them: the first interceptor is the outermost.
      const open: Parameters<Interceptor>[0] = (r) => this.#open(r as StreamRequest<I, O>, opened, stopped) as Promise<StreamResponse>;
      const next = this.interceptors.reduceRight((n, i) => i(n), open);
      let res: StreamResponse<I, O>;
      try {
        res = (await next(req)) as StreamResponse<I, O>;
      } catch (err) {
        // The request's own failures are ConnectErrors already; an interceptor's are `unknown`, as connect-es has them.
        throw ConnectError.from(err);
      }
      try {
        yield* res.message;
      } catch (err) {
        throw err instanceof ConnectError ? err : stopped(err);
      }
    } finally {
      clearTimeout(timer);
      // An error answer, a failure, or a consumer that stopped early: let go of the connection. undici
      // reports a destroyed body as an error event, which nobody is left to hear.
      const body = opened.body;
      if (body && !opened.ended && !body.destroyed) {
        body.on("error", () => undefined);
        body.destroy();
      }
    }
  }

  /** Closes the pool; streams under way end first. */
  close(): Promise<void> {
    return this.#agent.close();
  }

  /** The request itself, at the end of the interceptor chain: the answer's head, and its messages to come. */
  async #open<I extends DescMessage, O extends DescMessage>(
    req: StreamRequest<I, O>,
    opened: Opened,
    stopped: (err: unknown) => ConnectError,
  ): Promise<StreamResponse<I, O>> {
    let first: MessageShape<I> | undefined;
    for await (const m of req.message) {
      first = m;
      break;
    }
    const bytes = toBinary(req.method.input, first ?? create(req.method.input));
    const body = new Uint8Array(5 + bytes.length);
    new DataView(body.buffer).setUint32(1, bytes.length);
    body.set(bytes, 5);
    let res: Dispatcher.ResponseData;
    try {
      res = await request(req.url, { method: "POST", headers: Object.fromEntries(req.header), body, signal: req.signal, dispatcher: this.#agent });
    } catch (err) {
      throw stopped(err);
    }
    opened.body = res.body;
    if (res.statusCode !== 200) throw new ConnectError(`HTTP ${res.statusCode}`, codeFromHttpStatus(res.statusCode));
    const header = new Headers();
    for (const [name, value] of Object.entries(res.headers)) for (const v of [value ?? []].flat()) header.append(name, v);
    return { stream: true, service: req.service, method: req.method, header, trailer: new Headers(), message: messages(res.body, req.method.output, opened) };
  }
}

/** The request as connect-es hands it to interceptors: the caller's headers plus the protocol's. */
function streamRequest<I extends DescMessage, O extends DescMessage>(
  url: string,
  method: DescMethodServerStreaming<I, O>,
  message: MessageInitShape<I>,
  call: StreamCall,
  signal: AbortSignal,
): StreamRequest<I, O> {
  const header = new Headers(call.headers);
  header.set("Content-Type", "application/connect+proto");
  header.set("Connect-Protocol-Version", "1");
  if (call.timeoutMs) header.set("Connect-Timeout-Ms", String(call.timeoutMs));
  const input = create(method.input, message);
  return { stream: true, service: method.parent, method, requestMethod: "POST", url, signal, header, contextValues: createContextValues(), message: createAsyncIterable([input]) };
}

/** The messages of an answer's body, up to its end-of-stream message (whose error is thrown). */
async function* messages<O extends DescMessage>(body: Readable, output: O, opened: Opened): AsyncGenerator<MessageShape<O>, void, undefined> {
  const envelopes = new EnvelopeCutter();
  for await (const chunk of chunksOf(body)) {
    envelopes.push(chunk);
    for (let e = envelopes.next(); e; e = envelopes.next()) {
      if ((e.flags & endStreamFlag) === endStreamFlag) {
        const end = endStreamFromJson(e.payload);
        opened.ended = true;
        if (end.error) throw end.error;
        continue;
      }
      yield fromBinary(output, e.payload);
    }
  }
  if (!opened.ended || envelopes.pending) throw new ConnectError("protocol error: missing EndStreamResponse", Code.InvalidArgument);
}
