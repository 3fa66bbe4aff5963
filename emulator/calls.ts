/**
 * The request log behind GET /_emulator/calls: one record per request (platform and in-sandbox),
 * including requests a fault refused or dropped, so tests can see what really reached the server.
 */
import type { FaultKind } from "./faults";

/** One request as the call log keeps it. */
export interface CallRecord {
  /** Increasing sequence number, starting at 1; the `?since=` cursor. */
  seq: number;
  /** When the request arrived (ISO 8601). */
  time: string;
  method: string;
  /** Path and query string as sent. */
  path: string;
  /** `platform` or `sandbox` (in-sandbox API). */
  area: "platform" | "sandbox";
  /** Status answered, or null when the connection was dropped before an answer. */
  status: number | null;
  /** Time spent handling, in milliseconds. */
  ms: number;
  fault?: FaultKind;
}

/** Records kept; older ones are forgotten first. */
export const MAX_CALLS = 10_000;

/** An in-memory, bounded request log (`MAX_CALLS` records). */
export class CallLog {
  private records: CallRecord[] = [];
  private seq = 0;

  add(record: Omit<CallRecord, "seq">): CallRecord {
    const full = { seq: ++this.seq, ...record };
    this.records.push(full);
    if (this.records.length > MAX_CALLS) this.records.splice(0, this.records.length - MAX_CALLS);
    return full;
  }

  /** Records with `seq > since` (all with since = 0), oldest first. */
  since(since = 0): CallRecord[] {
    return this.records.filter((r) => r.seq > since).map((r) => ({ ...r }));
  }

  /** The seq of the latest record (0 when none). */
  last(): number {
    return this.seq;
  }
}
