import { describe, expect, it } from "vitest";
import { DEFAULT_TAIL_BYTES, TailBuffer } from "../../sdk/in-sandbox/tail";

/** Deterministic PRNG (mulberry32) so a failure reproduces. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const enc = (s: string) => new TextEncoder().encode(s);

describe("TailBuffer", () => {
  it("keeps everything while under capacity", () => {
    const t = new TailBuffer(16);
    t.append(enc("hello "));
    t.append(enc("world"));
    expect(t.text()).toBe("hello world");
    expect(t.totalBytes).toBe(11);
    expect(t.truncated).toBe(false);
  });

  it("defaults to 64 KiB", () => {
    expect(new TailBuffer().capacity).toBe(64 * 1024);
    expect(DEFAULT_TAIL_BYTES).toBe(65536);
  });

  it("keeps exactly the last N bytes of a large stream appended in random chunk sizes", () => {
    const random = rng(42);
    for (const capacity of [1, 7, 4096, 65536, 100_000]) {
      const t = new TailBuffer(capacity);
      const all = new Uint8Array(3 * 1024 * 1024);
      for (let i = 0; i < all.length; i++) all[i] = (i * 31 + (i >> 8)) & 0xff;
      let off = 0;
      while (off < all.length) {
        const n = Math.min(all.length - off, Math.floor(random() * capacity * 1.5) + 1);
        t.append(all.subarray(off, off + n));
        off += n;
      }
      expect(t.totalBytes).toBe(all.length);
      expect(t.truncated).toBe(true);
      expect(Buffer.from(t.bytes()).equals(Buffer.from(all.subarray(all.length - capacity)))).toBe(true);
    }
  });

  it("takes a single chunk larger than the capacity", () => {
    const t = new TailBuffer(4);
    t.append(enc("ab"));
    t.append(enc("0123456789"));
    expect(t.text()).toBe("6789");
    t.append(enc("x"));
    expect(t.text()).toBe("789x");
  });

  it("holds no more than its capacity however much is appended", () => {
    const t = new TailBuffer(1000);
    const chunk = new Uint8Array(777).fill(65);
    for (let i = 0; i < 20_000; i++) t.append(chunk); // ~15 MB through a 1000-byte window
    expect(t.bytes().length).toBe(1000);
    expect(t.totalBytes).toBe(777 * 20_000);
  });

  it("cuts text at a UTF-8 boundary when the window starts inside a character", () => {
    // "é" is 2 bytes, "€" 3, "😀" 4: a 5-byte window over "a€😀" starts inside "€".
    const t = new TailBuffer(5);
    t.append(enc("a€😀"));
    expect(t.text()).toBe("😀");
    const u = new TailBuffer(6);
    for (const ch of "ééé€") u.append(enc(ch));
    expect(u.text()).toBe("é€"); // 1 continuation byte skipped, no U+FFFD
  });

  it("leaves out a character still incomplete at the end", () => {
    const t = new TailBuffer(64);
    const euro = enc("€");
    t.append(enc("price: 5"));
    t.append(euro.subarray(0, 2));
    expect(t.text()).toBe("price: 5");
    t.append(euro.subarray(2));
    expect(t.text()).toBe("price: 5€");
  });

  it("shows other invalid bytes as U+FFFD", () => {
    const t = new TailBuffer(8);
    t.append(new Uint8Array([0x61, 0xff, 0x62]));
    expect(t.text()).toBe("a\uFFFDb");
  });

  it("rejects a capacity that is not a positive whole number", () => {
    expect(() => new TailBuffer(0)).toThrow("tail capacity must be a positive whole number of bytes, got 0");
    expect(() => new TailBuffer(1.5)).toThrow(RangeError);
  });
});
