/**
 * Drives the real dynamic-provider host of @pulumi/pulumi over gRPC, the way the engine does
 * (pulumi/pulumi sdk/nodejs/cmd/dynamic-provider and the engine's plugin launch in
 * sdk/go/common/resource/plugin/plugin.go): start `cmd/dynamic-provider` with the project dir as cwd, read its
 * port from the first stdout line, Configure it with the stack config, then call the resource methods
 * with `__provider` (the serialized provider) in every property bag.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as grpc from "@grpc/grpc-js";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";

type Obj = Record<string, unknown>;

export interface InitFailure {
  id: string;
  properties: Obj;
  reasons: string[];
}

/** A failed call: the gRPC status code, the message, and the partial-creation details when sent. */
export interface HostError extends Error {
  code: grpc.status;
  details: string;
  initFailure?: InitFailure;
}

export interface ProviderHost {
  /** `providerID`: the provider's ID, which the engine sends with Configure (a native plugin keys new resources with it). */
  configure(config: Record<string, string>, providerID?: string): Promise<{ acceptSecrets: boolean }>;
  check(urn: string, olds: Obj, news: Obj): Promise<{ inputs: Obj; failures: { property: string; reason: string }[] }>;
  /** `diffs` and `detailedDiff` only when the answer has them (a kind with a diff of its own: provider/runtime/detailed-diff.ts). */
  diff(id: string, urn: string, olds: Obj, news: Obj): Promise<{
    changes: "some" | "none" | "unknown"; replaces: string[]; deleteBeforeReplace: boolean; diffs?: string[]; detailedDiff?: Record<string, { kind: string; inputDiff: boolean }>;
  }>;
  /** `timeoutSeconds`: the resource's `customTimeouts.create`, as the engine sends it (0 or left out: none). */
  create(urn: string, properties: Obj, timeoutSeconds?: number): Promise<{ id: string; properties: Obj }>;
  read(id: string, urn: string, properties: Obj): Promise<{ id: string; properties: Obj }>;
  update(id: string, urn: string, olds: Obj, news: Obj): Promise<{ properties: Obj }>;
  delete(id: string, urn: string, properties: Obj): Promise<void>;
  /** An invoke (a lookup, `sandbox:index:<name>`): its result as sent (secrets wrapped) and its failures. */
  invoke(token: string, args: Obj): Promise<{ outputs: Obj; failures: { property: string; reason: string }[] }>;
  /** The engine's Cancel (the first Ctrl-C of `pulumi up`). */
  cancel(): Promise<void>;
  /** Everything the host wrote to stderr so far (the engine shows it to the user). */
  stderr(): string;
  close(): Promise<void>;
}

/** Longest a call may take: builds and provisioning here take a second or two. */
const CALL_DEADLINE_MS = 20_000;
const HOST = require.resolve("@pulumi/pulumi/cmd/dynamic-provider");
/** `UPDATE`, ... by the number the wire carries. */
const KIND_NAMES = Object.fromEntries(Object.entries(proto.PropertyDiff.Kind).map(([name, n]) => [n, name])) as Record<number, string>;
const CHANGES = { [proto.DiffResponse.DiffChanges.DIFF_SOME]: "some", [proto.DiffResponse.DiffChanges.DIFF_NONE]: "none", [proto.DiffResponse.DiffChanges.DIFF_UNKNOWN]: "unknown" } as const;

/**
 * `env` replaces the host's environment (PATH is kept), so a test decides exactly what it can see.
 * `plugin`: a native provider plugin's executable (a node script) to run instead of the dynamic host.
 */
export async function startHost(opts: { cwd: string; project: string; env?: Record<string, string>; plugin?: string }): Promise<ProviderHost> {
  const child = spawn(process.execPath, [opts.plugin ?? HOST, "127.0.0.1:1"], {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? "", PULUMI_NODEJS_PROJECT: opts.project, ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const port = await firstLine(child, () => stderr);
  const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  // A deadline, so a call the host never answers fails with its stderr instead of hanging the test.
  type Method<Req, Res> = (req: Req, md: grpc.Metadata, opts: Partial<grpc.CallOptions>, cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown;
  const call = <Req, Res>(method: Method<Req, Res>, req: Req) =>
    new Promise<Res>((res, rej) =>
      method.call(client, req, new grpc.Metadata(), { deadline: Date.now() + CALL_DEADLINE_MS }, (err, out) => (err ? rej(hostError(err, stderr)) : res(out))),
    );
  // As the engine does, a provider that does not accept secrets (the dynamic-provider host) gets
  // every value plain: its answers may hold secrets, which a test passes back as it got them.
  let acceptSecrets = true;
  const struct = (obj: Obj) => Struct.fromJavaScript((acceptSecrets ? obj : withoutSecretMarks(obj)) as Record<string, never>);

  return {
    async configure(config, providerID) {
      const req = new proto.ConfigureRequest().setArgs(struct(config));
      if (providerID !== undefined) req.setId(providerID);
      const res = await call<proto.ConfigureRequest, proto.ConfigureResponse>(client.configure, req);
      acceptSecrets = res.getAcceptsecrets();
      return { acceptSecrets };
    },
    async check(urn, olds, news) {
      const req = new proto.CheckRequest().setUrn(urn).setOlds(struct(olds)).setNews(struct(news));
      const res = await call<proto.CheckRequest, proto.CheckResponse>(client.check, req);
      return { inputs: res.getInputs()?.toJavaScript() ?? {}, failures: res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })) };
    },
    async diff(id, urn, olds, news) {
      const req = new proto.DiffRequest().setId(id).setUrn(urn).setOlds(struct(olds)).setNews(struct(news));
      const res = await call<proto.DiffRequest, proto.DiffResponse>(client.diff, req);
      const answer = { changes: CHANGES[res.getChanges()], replaces: res.getReplacesList(), deleteBeforeReplace: res.getDeletebeforereplace() };
      const diffs = res.getDiffsList();
      const detailedDiff: Record<string, { kind: string; inputDiff: boolean }> = {};
      res.getDetaileddiffMap().forEach((d, path) => (detailedDiff[path] = { kind: KIND_NAMES[d.getKind()]!, inputDiff: d.getInputdiff() }));
      const detailed = res.getHasdetaileddiff() ? { detailedDiff } : {};
      return { ...answer, ...(diffs.length ? { diffs } : {}), ...detailed };
    },
    async create(urn, properties, timeoutSeconds = 0) {
      const req = new proto.CreateRequest().setUrn(urn).setProperties(struct(properties)).setTimeout(timeoutSeconds);
      const res = await call<proto.CreateRequest, proto.CreateResponse>(client.create, req);
      return { id: res.getId(), properties: res.getProperties()?.toJavaScript() ?? {} };
    },
    async read(id, urn, properties) {
      const req = new proto.ReadRequest().setId(id).setUrn(urn).setProperties(struct(properties));
      const res = await call<proto.ReadRequest, proto.ReadResponse>(client.read, req);
      return { id: res.getId(), properties: res.getProperties()?.toJavaScript() ?? {} };
    },
    async update(id, urn, olds, news) {
      const req = new proto.UpdateRequest().setId(id).setUrn(urn).setOlds(struct(olds)).setNews(struct(news));
      const res = await call<proto.UpdateRequest, proto.UpdateResponse>(client.update, req);
      return { properties: res.getProperties()?.toJavaScript() ?? {} };
    },
    async delete(id, urn, properties) {
      const req = new proto.DeleteRequest().setId(id).setUrn(urn).setProperties(struct(properties));
      await call(client.delete, req);
    },
    async invoke(token, args) {
      const req = new proto.InvokeRequest().setTok(token).setArgs(struct(args));
      const res = await call<proto.InvokeRequest, proto.InvokeResponse>(client.invoke, req);
      return { outputs: res.getReturn()?.toJavaScript() ?? {}, failures: res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })) };
    },
    async cancel() {
      await call(client.cancel, new Empty());
    },
    stderr: () => stderr,
    async close() {
      client.close();
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((res) => child.once("exit", res));
        child.kill();
        await exited;
      }
    },
  };
}

/** A property bag with each secret's value in place of its wrapper. */
function withoutSecretMarks(value: Obj): Obj {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v === null || typeof v !== "object") return v;
    const obj = v as Obj;
    if (obj[specialSigKey] === specialSecretSig) return strip(obj.value);
    return Object.fromEntries(Object.entries(obj).map(([k, x]) => [k, strip(x)]));
  };
  return strip(value) as Obj;
}

/** The port the host prints on its first stdout line. */
function firstLine(child: ChildProcess, stderr: () => string): Promise<number> {
  return new Promise((res, rej) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf("\n");
      if (nl >= 0) res(Number(out.slice(0, nl)));
    });
    child.once("exit", (code) => rej(new Error(`the provider host exited (${code}) before printing its port:\n${stderr()}`)));
  });
}

/** Unpacks `grpc-status-details-bin`: the host's ErrorResourceInitFailed for a partial creation. */
function hostError(err: grpc.ServiceError, stderr: string): HostError {
  const message = err.code === grpc.status.DEADLINE_EXCEEDED ? `the host did not answer in time; its stderr:\n${stderr}` : err.details;
  const out = Object.assign(new Error(message), { code: err.code, details: err.details }) as HostError;
  const [bin] = err.metadata?.get("grpc-status-details-bin") ?? [];
  if (!bin) return out;
  for (const any of Status.deserializeBinary(new Uint8Array(bin as Buffer)).getDetailsList()) {
    const detail = any.unpack(proto.ErrorResourceInitFailed.deserializeBinary, "pulumirpc.ErrorResourceInitFailed");
    if (detail) out.initFailure = { id: detail.getId(), properties: detail.getProperties()?.toJavaScript() ?? {}, reasons: detail.getReasonsList() };
  }
  return out;
}
