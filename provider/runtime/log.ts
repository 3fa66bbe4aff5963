/**
 * Progress lines. The engine passes a provider's stderr through to `pulumi up` as it comes, so long
 * work (builds, provisioning) is visible while it runs. Every line names its resource, and every line
 * is redacted of what that resource hides (./secrets.ts), so no secret reaches the log: a line at a
 * time, so each line of a secret of several lines is hidden where it shows alone.
 */
import { redact } from "../../sdk/errors";
import type { ResourceKind } from "../kinds/specs";
import { resourceNameOf } from "../resource-key";
import { hiddenValues } from "./secrets";
import { currentPart, currentUrn } from "./operation";

export interface Logger {
  (line: string): void;
}

/** Where finished lines go, with the key of their resource (../resource-key.ts). */
export type LogSink = (line: string, resourceKey: string) => void;

/**
 * stderr until a front end says otherwise: both send lines to the engine's log against the resource's
 * URN, so they show on its row (./engine-log.ts); stderr is where they go in tests and under mocks.
 */
let sink: LogSink = (line) => process.stderr.write(`${line}\n`);

export function setLogSink(next: LogSink): void {
  sink = next;
}

/**
 * The logger of one resource, from its checked inputs (or state): its key names it, and every line is
 * redacted of what it hides, and of `more` (what it learns while it runs: a sandbox's tokens).
 */
export function resourceLogger(kind: ResourceKind, inputs: Record<string, unknown>, more: () => Iterable<string | undefined> = () => []): Logger {
  const resourceKey = typeof inputs.__resource === "string" ? inputs.__resource : "";
  return (line) => {
    // Named as the engine names it now (a renamed resource's key still holds its first name), with the
    // part of it the line is about (a fleet's member: ./operation.ts runAsPart); with no URN, by its
    // own key, which names the part already.
    const urn = currentUrn();
    const part = urn ? currentPart() : undefined;
    const name = `${resourceNameOf(urn ?? resourceKey) || kind}${part ? `/${part}` : ""}`;
    const hidden = [...hiddenValues(kind, inputs), ...more()];
    for (const part of line.replace(/\r/g, "").split("\n")) {
      if (part.trim() !== "") sink(`[${kind} ${name}] ${redact(part, hidden)}`, resourceKey);
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
