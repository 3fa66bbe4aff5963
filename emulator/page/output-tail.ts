/**
 * The end of a command's output as the page shows it: stdout, stderr (or a terminal's) in the order
 * they came, at most `OUTPUT_TAIL_BYTES` of it, the oldest dropped first. A long-running server's log
 * never grows the emulator's memory past that.
 */
import type { OutputKind } from "../envd/process/child";

/** Bytes of one command's output the page keeps: its last 64 KiB. */
export const OUTPUT_TAIL_BYTES = 64 * 1024;

/** A run of output from one stream. */
export interface OutputPart {
  stream: OutputKind;
  text: string;
}

export class OutputTail {
  private readonly chunks: { stream: OutputKind; data: Buffer }[] = [];
  private kept = 0;
  /** Every byte the command wrote, kept or not. */
  total = 0;

  constructor(private readonly limit = OUTPUT_TAIL_BYTES) {}

  /** Keeps a copy of `data`: envd hands out views of buffers it reuses. */
  push(stream: OutputKind, data: Uint8Array): void {
    this.total += data.length;
    this.chunks.push({ stream, data: Buffer.from(data) });
    this.kept += data.length;
    this.trim();
  }

  /** Bytes kept, at most the limit. */
  get size(): number {
    return this.kept;
  }

  /** The kept output as text, one part per run of a stream. */
  parts(): OutputPart[] {
    const runs: { stream: OutputKind; data: Buffer[] }[] = [];
    for (const c of this.chunks) {
      const last = runs.at(-1);
      if (last?.stream === c.stream) last.data.push(c.data);
      else runs.push({ stream: c.stream, data: [c.data] });
    }
    // Joined before decoding, so a character cut between two reads reads whole.
    return runs.map((r) => ({ stream: r.stream, text: Buffer.concat(r.data).toString("utf8") }));
  }

  private trim(): void {
    while (this.kept > this.limit) {
      const first = this.chunks[0]!;
      const excess = this.kept - this.limit;
      if (first.data.length <= excess) {
        this.chunks.shift();
        this.kept -= first.data.length;
      } else {
        first.data = first.data.subarray(excess);
        this.kept -= excess;
      }
    }
  }
}
