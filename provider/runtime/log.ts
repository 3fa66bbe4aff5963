/**
 * Progress lines. The engine passes a provider's stderr through to `pulumi up` as it comes, so long
 * work (builds, provisioning) is visible while it runs. Every line names its resource, and every line
 * is redacted of the values given, so no secret reaches the log.
 */
import { redact } from "../../sdk/errors";
import { resourceNameOf } from "../resource-key";

export interface Logger {
  (line: string): void;
}

/** Where finished lines go, with the key of their resource (../resource-key.ts). */
export type LogSink = (line: string, resourceKey: string) => void;

/**
 * stderr, which the engine shows for the dynamic-provider host. A native plugin's stderr reaches only
 * the engine's verbose log, so the plugin front end sends lines to the engine's log instead.
 */
let sink: LogSink = (line) => process.stderr.write(`${line}\n`);

export function setLogSink(next: LogSink): void {
  sink = next;
}

export function resourceLogger(kind: string, resourceKey: string, secrets: () => Iterable<string | undefined>): Logger {
  const name = resourceNameOf(resourceKey) || kind;
  return (line) => {
    for (const part of line.replace(/\r/g, "").split("\n")) {
      if (part.trim() !== "") sink(`[${kind} ${name}] ${redact(part, secrets())}`, resourceKey);
    }
  };
}

/** Turns a stream of text chunks into whole lines for a logger; `flush` emits a last partial line. */
export function lineWriter(log: Logger): { write(text: string): void; flush(): void } {
  let pending = "";
  return {
    write(text) {
      const lines = (pending + text).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) log(line);
    },
    flush() {
      if (pending) log(pending);
      pending = "";
    },
  };
}
