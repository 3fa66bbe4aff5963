/**
 * Bytes from a stream of chunks, buffered only until a reader takes them: the streaming readers of
 * envd's multipart uploads (envd/multipart.ts) and of image layers (image/tar-stream.ts) both read
 * exact spans and look ahead without holding the whole stream in memory.
 */
export class ChunkBuffer {
  /** What has arrived and not been taken; a reader takes by slicing it. */
  buffer: Buffer = Buffer.alloc(0);
  private done = false;
  constructor(private readonly source: AsyncIterator<Buffer>) {}

  /** Reads one more chunk; false at the end of the stream. */
  async more(): Promise<boolean> {
    if (this.done) return false;
    const next = await this.source.next();
    if (next.done) {
      this.done = true;
      return false;
    }
    this.buffer = this.buffer.length === 0 ? next.value : Buffer.concat([this.buffer, next.value]);
    return true;
  }

  /** Waits for at least `n` bytes; false at the end of the stream. */
  async have(n: number): Promise<boolean> {
    while (this.buffer.length < n) if (!(await this.more())) return false;
    return true;
  }
}
