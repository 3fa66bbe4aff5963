/**
 * Progress lines to the engine's log, against the resource's URN, so `pulumi up` shows them on the
 * resource's own row, in both front ends. A native plugin's stderr reaches only the engine's verbose
 * log, so there the runtime's lines would otherwise be lost; the dynamic-provider host's stderr is
 * shown, but on the stack's row, where a line about one resource (a create waiting for the team's
 * limit, a build's log) is far from the row of the resource it is about.
 */
import type * as grpc from "@grpc/grpc-js";
import { EngineClient } from "@pulumi/pulumi/proto/engine_grpc_pb";
import { LogRequest, LogSeverity } from "@pulumi/pulumi/proto/engine_pb";
import { urnOf } from "../resource-key";
import { likePulumi } from "./like-pulumi";
import { setLogSink, type LogSink } from "./log";
import { currentUrn, isStatusLine, noteEngineUnreachable } from "./operation";

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

/** Log calls not yet answered by the engine. */
const pending = new Set<Promise<void>>();

/** gRPC's status UNAVAILABLE, a number: grpc-js is loaded as @pulumi/pulumi's own copy (likePulumi), never imported here. */
const UNAVAILABLE = 14;

/**
 * Resolves once every line logged so far has reached the engine. A method answers only after this:
 * the lines travel on the engine's own connection, not the one the answer takes, and a last line (a
 * command's exit, "went through after waiting") sent after the answer could come after the engine
 * finished the step, or the whole run.
 */
export async function logsSent(): Promise<void> {
  await Promise.all([...pending]);
}

/**
 * The URN a line about the resource of `resourceKey` goes to: the one the engine sent with the request
 * under way (./operation.ts), else the one in the key (every key the runtime mints holds one), which is
 * the URN of the resource's first create and so names a row that a rename left behind.
 */
export function urnForLine(resourceKey: string): string | undefined {
  return currentUrn() ?? urnOf(resourceKey);
}

/**
 * A sink that logs each line as info against the resource's URN (`urnForLine`), ephemeral when it is
 * status (./operation.ts); a line the engine refuses goes to stderr, so it is never lost outright.
 */
export function engineLogSink(address: string, credentials: grpc.ChannelCredentials): LogSink {
  const engine = new EngineClient(address, credentials);
  return (line, resourceKey) => {
    const request = new LogRequest().setSeverity(LogSeverity.INFO).setMessage(line).setEphemeral(isStatusLine());
    const urn = urnForLine(resourceKey);
    if (urn) request.setUrn(urn);
    const sent = new Promise<void>((resolve) => {
      engine.log(request, (err) => {
        if (err?.code === UNAVAILABLE) noteEngineUnreachable();
        if (err) process.stderr.write(`${line}\n`);
        resolve();
      });
    });
    pending.add(sent);
    void sent.then(() => pending.delete(sent));
  };
}

/**
 * In the dynamic-provider host (@pulumi/pulumi's `cmd/dynamic-provider`, started with the engine's
 * address as its first argument), sends the runtime's lines to the engine's log. Elsewhere (a program
 * under mocks, a test calling the runtime) nothing changes: lines go to stderr.
 */
export function logToEngineInDynamicHost(argv: string[] = process.argv): void {
  if (!/[\\/]cmd[\\/]dynamic-provider([\\/]index\.js)?$/.test(argv[1] ?? "")) return;
  const address = engineAddress(argv.slice(2));
  if (!address) return;
  const { credentials } = likePulumi<typeof grpc>("@grpc/grpc-js");
  setLogSink(engineLogSink(address, credentials.createInsecure()));
}
