/**
 * Starts the plugin: `@pulumi/pulumi/provider`'s gRPC server around ./provider.ts.
 *
 * That server answers Configure itself and drops the request: a Provider has no configure method
 * (@pulumi/pulumi 3.259, provider/server.js). The provider's config (`sandbox:apiKey`, ...) and its ID
 * (the stack instance of resource keys, ./stack-instance.ts) arrive only there, so its Configure is
 * wrapped once, at the one place the server is assembled (`addService`), to hand the request's
 * variables to the runtime's `configure` and its ID to the keys first; the answer stays the server's.
 *
 * The server also reads every request's property structs without asking whether they were sent, and
 * the engine's import sends a Read with none (the resource has no state yet): the call then fails with
 * "Cannot read properties of undefined (reading 'toJavaScript')". Absent structs are made empty ones.
 *
 * That answer accepts secrets, and this plugin keeps it: with secrets accepted the engine sends each
 * secret wrapped, so the plugin knows exactly which values a program marked secret, in any language,
 * and the runtime hides them from logs. Refusing them would strip the marks (the engine would only
 * re-mark outputs named like secret inputs) and leave the logs nothing to redact but the spec's own
 * secret fields. The price is that the plugin must wrap secrets again itself (./adapter.ts).
 */
import { main } from "@pulumi/pulumi/provider";
import * as runtime from "../runtime/index";
import { engineAddress, engineLogSink, logsSent } from "../runtime/engine-log";
import { likePulumi } from "../runtime/like-pulumi";
import { setLogSink } from "../runtime/log";
import { withOldInputs } from "./old-inputs";
import { answeringDiff } from "../runtime/detailed-diff";
import { asOperation, type EngineCall } from "./operation";
import { previewAnswer, type PreviewRequest } from "./preview";
import { plugin } from "./provider";
import { setStackInstance } from "./stack-instance";

interface ConfigureCall {
  request: { getVariablesMap(): { forEach(fn: (value: string, key: string) => void): void }; getId?(): string };
}
type Method = (call: { request: Record<string, unknown> }, callback: unknown) => void;
type Callback = (err: unknown, resp?: unknown) => void;
type Implementation = Record<string, Method> & { configure(call: ConfigureCall, callback: Callback): void };
interface ProviderProto {
  CreateResponse: new () => { setProperties(value: unknown): void };
  UpdateResponse: new () => { setProperties(value: unknown): void };
}
interface Grpc {
  Server: { prototype: { addService(service: unknown, implementation: Implementation): void } };
  credentials: { createInsecure(): import("@grpc/grpc-js").ChannelCredentials };
}

/**
 * The engine sends `variables` keyed `<package>:config:<key>` with secrets in plaintext; the runtime
 * reads the stack-config spelling (`sandbox:apiKey`, ../config-keys.ts).
 */
export function configSource(call: ConfigureCall): { get(key: string): string | undefined } {
  const values = new Map<string, string>();
  call.request.getVariablesMap().forEach((value, key) => values.set(key.replace(/^([^:]+):config:/, "$1:"), value));
  return { get: (key) => values.get(key) };
}

/** The resource methods, and the property structs of their requests (`getOlds` ... `setOlds`). */
const STRUCTS: Record<string, string[]> = {
  check: ["Olds", "News"],
  diff: ["Olds", "News"],
  create: ["Properties"],
  read: ["Properties"],
  update: ["Olds", "News"],
  delete: ["Properties"],
};

interface RequestFields {
  getUrn(): string;
  getTimeout(): number;
  getOldInputs?(): { toJavaScript(): Record<string, unknown> } | undefined;
}

/**
 * What the provider's methods need of a request that @pulumi/pulumi's server does not hand them: the
 * engine's deadline of a Create or Update (customTimeouts, in seconds: ./operation.ts) and whether its
 * connection still stands, and the inputs the engine recorded, sent with a Diff or Update (./old-inputs.ts).
 */
function inContext(method: string, call: { request: unknown } & EngineCall, answer: (callback: Callback) => unknown, callback: Callback): void {
  const request = call.request as RequestFields;
  const withOlds = (cb: Callback) => withOldInputs(request.getOldInputs?.()?.toJavaScript(), () => answer(cb));
  if (method === "create") asOperation("create", request.getUrn(), request.getTimeout(), () => answer(callback), call);
  else if (method === "update") asOperation("update", request.getUrn(), request.getTimeout(), () => withOlds(callback), call);
  // The server drops all a Diff says but its changes and replaces; the answer gets the rest (../runtime/detailed-diff.ts).
  else if (method === "diff") answeringDiff(withOlds, callback);
  else answer(callback);
}

export async function serve(args: string[]): Promise<void> {
  const { Server, credentials } = likePulumi<Grpc>("@grpc/grpc-js");
  const engine = engineAddress(args);
  if (engine) setLogSink(engineLogSink(engine, credentials.createInsecure()));
  const { Struct } = likePulumi<{ Struct: (new () => unknown) & { fromJavaScript(value: Record<string, unknown>): never } }>("google-protobuf/google/protobuf/struct_pb");
  const proto = likePulumi<ProviderProto>("@pulumi/pulumi/proto/provider_pb");
  const addService = Server.prototype.addService;
  Server.prototype.addService = function (service, implementation) {
    const wrapped = Object.create(implementation) as Implementation;
    wrapped.configure = (call, callback) => {
      runtime.configure({ config: configSource(call) });
      setStackInstance(call.request.getId?.());
      // Previews of Create and Update come to the plugin (./preview.ts), so a plan can know IDs.
      implementation.configure(call, (err, resp) => {
        (resp as { setSupportspreview?(v: boolean): void } | undefined)?.setSupportspreview?.(true);
        callback(err, resp);
      });
    };
    for (const [method, fields] of Object.entries(STRUCTS)) {
      wrapped[method] = (call, callback) => {
        for (const field of fields) {
          const request = call.request as Record<string, (value?: unknown) => unknown>;
          if (request[`get${field}`]?.() === undefined) request[`set${field}`]?.(new Struct());
        }
        const planned = previewAnswer(method, call.request as unknown as PreviewRequest, Struct, () =>
          new (method === "create" ? proto.CreateResponse : proto.UpdateResponse)());
        if (planned) return (callback as Callback)(null, planned);
        const answered: Callback = (err, resp) => void logsSent().then(() => (callback as Callback)(err, resp));
        inContext(method, call as unknown as { request: unknown } & EngineCall, (cb) => implementation[method]!(call, cb), answered);
      };
    }
    addService.call(this, service, wrapped);
  };
  try {
    await main(plugin, args);
  } finally {
    Server.prototype.addService = addService;
  }
}
