/**
 * Process Start and Connect in Connect's binary codec, served with an encoder of its own for the
 * output events. Why: an output event is one 32 KiB read (envd's), and protobuf-es's writer makes
 * each one a fresh 64 KiB zeroed buffer grown from 128 bytes, moves the bytes twice for the two
 * nested messages, copies them out, and connect copies them once more into the envelope. That was
 * half of the emulator's CPU on a 200 MB stream, and the emulator bounded every client measured
 * in bench 2. Here an output event is written straight into its envelope: one buffer, one copy.
 *
 * Only what the encoder changes is served here: an uncompressed request from a client that accepts
 * no compression. The rest of the protocol is connect's own (its timeout parsing, request
 * envelopes, interceptors, handler context and end of stream), and so are the handlers
 * (./start.ts, ./service.ts); any other request goes to the connect-node adapter. Some of those
 * pieces are exported by connect as internal (`@connectrpc/connect/protocol`), which is why the
 * package takes connect's patch releases only (~2.2.0, not ^); test/emulator/envd-binary-stream.test.ts
 * sends the same requests through both paths, so a drift between them shows there.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { toBinary, type DescMessage, type DescMethod, type Message } from "@bufbuild/protobuf";
import { Code, ConnectError, createHandlerContext, createMethodImplSpec, type ContextValues, type Interceptor, type MethodImplSpec, type ServiceImpl } from "@connectrpc/connect";
import { universalRequestFromNodeRequest, universalResponseToNodeResponse } from "@connectrpc/connect-node";
import {
  createMethodSerializationLookup,
  encodeEnvelope,
  pipe,
  transformInvokeImplementation,
  transformParseEnvelope,
  transformPrepend,
  transformSplitEnvelope,
  untilFirst,
  type AsyncIterableTransform,
  type Serialization,
  validateReadWriteMaxBytes,
} from "@connectrpc/connect/protocol";
import { contentTypeStreamProto, createEndStreamSerialization, endStreamFlag, headerStreamAcceptEncoding, headerStreamEncoding, headerTimeout, parseContentType, parseTimeout } from "@connectrpc/connect/protocol-connect";
import { Process, type ConnectResponse, type StartResponse } from "../../../sdk/gen/process/process_pb";

/** Serves a request it can take and says so; false leaves the request untouched for the adapter. */
export type BinaryStreamServer = (req: IncomingMessage, res: ServerResponse) => boolean;

/** As connect-node's adapter options: what every call runs through, and the values a handler reads. */
export interface BinaryStreamOptions {
  interceptors: Interceptor[];
  contextValues: (req: IncomingMessage) => ContextValues;
}

/** A method served here: its implementation and the parser of its request message. */
interface Method {
  spec: MethodImplSpec;
  parse: Serialization<Message>;
}

// connect-node's defaults: no read or write limit beyond the protocol's, no cap on a deadline.
const LIMITS = validateReadWriteMaxBytes(undefined, undefined, undefined);
const END_STREAM = createEndStreamSerialization(undefined);

export function binaryProcessStreams(impl: Pick<ServiceImpl<typeof Process>, "start" | "connect">, options: BinaryStreamOptions): BinaryStreamServer {
  const methods = new Map<string, Method>(
    ([Process.method.start, Process.method.connect] as DescMethod[]).map((m) => [
      `/${Process.typeName}/${m.name}`,
      {
        spec: createMethodImplSpec(m, (m === Process.method.start ? impl.start : impl.connect) as never),
        parse: createMethodSerializationLookup(m, undefined, undefined, LIMITS).getI(true),
      },
    ]),
  );
  return (req, res) => {
    const method = methods.get((req.url ?? "").split("?")[0] ?? "");
    const type = parseContentType(req.headers["content-type"] ?? null);
    if (!method || req.method !== "POST" || !type?.stream || !type.binary || !uncompressed(req)) return false;
    serve(method, req, res, options).catch((reason: unknown) => {
      if (ConnectError.from(reason).code === Code.Aborted) return;
      console.error(`handler for rpc ${method.spec.method.name} of ${Process.typeName} failed`, reason);
    });
    return true;
  };
}

/** Neither compressed nor asking for a compressed answer: then connect-node would not compress either. */
function uncompressed(req: IncomingMessage): boolean {
  const identity = (h: string | string[] | undefined) => h === undefined || h === "" || h === "identity";
  // connect names its headers in canonical case; node's are lower case.
  return identity(req.headers[headerStreamEncoding.toLowerCase()]) && identity(req.headers[headerStreamAcceptEncoding.toLowerCase()]);
}

/** connect's stream handler (protocol-connect/handler-factory.ts) for this one case, with our encoder. */
async function serve({ spec, parse }: Method, req: IncomingMessage, res: ServerResponse, options: BinaryStreamOptions): Promise<void> {
  const contextValues = options.contextValues(req);
  const uReq = universalRequestFromNodeRequest(req, res, undefined, contextValues);
  const timeout = parseTimeout(uReq.header.get(headerTimeout), Number.MAX_SAFE_INTEGER);
  const context = createHandlerContext({
    ...spec,
    service: spec.method.parent,
    requestMethod: uReq.method,
    protocolName: "connect",
    timeoutMs: timeout.timeoutMs,
    requestSignal: uReq.signal,
    requestHeader: uReq.header,
    url: uReq.url,
    responseHeader: { "content-type": contentTypeStreamProto },
    contextValues,
  });
  const input = pipe(
    uReq.body as AsyncIterable<Uint8Array>,
    // A malformed deadline ends the stream with its error before anything runs, as in connect.
    transformPrepend<Uint8Array | undefined>(() => {
      if (timeout.error) throw timeout.error;
      return undefined;
    }) as AsyncIterableTransform<Uint8Array>,
    transformSplitEnvelope(LIMITS.readMaxBytes),
    transformParseEnvelope(parse, endStreamFlag),
  );
  const output = transformInvokeImplementation(spec, context, options.interceptors)(input) as AsyncIterable<StartResponse | ConnectResponse>;
  async function* envelopes(): AsyncGenerator<Uint8Array> {
    let failure: unknown;
    try {
      for await (const message of output) yield encodeEvent(spec.method.output, message);
    } catch (err) {
      failure = err;
    } finally {
      context.abort(failure);
    }
    const error = failure === undefined ? undefined : failure instanceof ConnectError ? failure : new ConnectError("internal error", Code.Internal, undefined, undefined, failure);
    yield encodeEnvelope(endStreamFlag, END_STREAM.serialize({ metadata: context.responseTrailer, ...(error ? { error } : {}) }));
  }
  await universalResponseToNodeResponse({ status: 200, header: context.responseHeader, body: await untilFirst(envelopes()) }, res);
}

/** One event as its envelope. An output event is laid out by hand; the rest are small and rare. */
export function encodeEvent(desc: DescMessage, message: StartResponse | ConnectResponse): Uint8Array {
  const event = message.event?.event;
  if (event?.case !== "data" || !event.value.output.case) return encodeEnvelope(0, toBinary(desc, message));
  const { case: kind, value: bytes } = event.value.output;
  // DataEvent: field stdout=1 / stderr=2 / pty=3, bytes; ProcessEvent.data=2; {Start,Connect}Response.event=1.
  const dataLen = 1 + varintSize(bytes.length) + bytes.length;
  const eventLen = 1 + varintSize(dataLen) + dataLen;
  const payloadLen = 1 + varintSize(eventLen) + eventLen;
  const out = new Uint8Array(5 + payloadLen);
  new DataView(out.buffer).setUint32(1, payloadLen);
  let at = 5;
  const varint = (v: number) => {
    for (; v >= 0x80; v >>>= 7) out[at++] = (v & 0x7f) | 0x80;
    out[at++] = v;
  };
  out[at++] = (1 << 3) | 2;
  varint(eventLen);
  out[at++] = (2 << 3) | 2;
  varint(dataLen);
  out[at++] = ((kind === "stdout" ? 1 : kind === "stderr" ? 2 : 3) << 3) | 2;
  varint(bytes.length);
  out.set(bytes, at);
  return out;
}

function varintSize(v: number): number {
  let n = 1;
  for (; v >= 0x80; v >>>= 7) n++;
  return n;
}
