/**
 * Progress lines to the engine's log, against the resource's URN, so `pulumi up` shows them on the
 * resource's own row. A native plugin's stderr reaches only the engine's verbose log (the dynamic
 * provider's host is shown; this one is not), so the runtime's lines would otherwise be lost.
 */
import type * as grpc from "@grpc/grpc-js";
import { EngineClient } from "@pulumi/pulumi/proto/engine_grpc_pb";
import { LogRequest, LogSeverity } from "@pulumi/pulumi/proto/engine_pb";
import { urnOf } from "../resource-key";
import type { LogSink } from "../runtime/log";
import { isStatusLine } from "../runtime/operation";

/**
 * The engine's address among the plugin's arguments: the first that is not a flag the engine adds
 * (`--logtostderr`, `-v=N`, `--tracing <endpoint>`), as @pulumi/pulumi's own parser reads them.
 */
export function engineAddress(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--tracing") i++;
    else if (arg !== "--logtostderr" && !arg.startsWith("-v=")) return arg;
  }
  return undefined;
}

/**
 * A sink that logs each line as info against the URN in the resource key (every key the plugin mints
 * holds one), ephemeral when it is status (../runtime/operation.ts); a line the engine refuses goes to
 * stderr, so it is never lost outright.
 */
export function engineLogSink(address: string, credentials: grpc.ChannelCredentials): LogSink {
  const engine = new EngineClient(address, credentials);
  return (line, resourceKey) => {
    const request = new LogRequest().setSeverity(LogSeverity.INFO).setMessage(line).setEphemeral(isStatusLine());
    const urn = urnOf(resourceKey);
    if (urn) request.setUrn(urn);
    engine.log(request, (err) => {
      if (err) process.stderr.write(`${line}\n`);
    });
  };
}
