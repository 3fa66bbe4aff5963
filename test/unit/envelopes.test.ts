/**
 * sdk/transport/envelopes.ts: envelopes come out whole and in order however the stream is cut into chunks, an
 * envelope within one chunk is a view of it (no copy), and bytes left at the end are reported.
 */
import { expect, test } from "vitest";
import { EnvelopeCutter } from "../../sdk/transport/envelopes";

function envelope(flags: number, payload: number[]): number[] {
  const n = payload.length;
  return [flags, (n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255, ...payload];
}

const payloads = [[1, 2, 3], [], Array.from({ length: 300 }, (_, i) => i % 256), [9]];
const stream = Uint8Array.from([...payloads.slice(0, 3).flatMap((p) => envelope(0, p)), ...envelope(2, payloads[3]!)]);

test("every way of cutting the stream into two or three chunks gives the same envelopes", () => {
  for (let a = 0; a <= stream.length; a += 7) {
    for (let b = a; b <= stream.length; b += 13) {
      const cutter = new EnvelopeCutter();
      const out: { flags: number; payload: number[] }[] = [];
      for (const chunk of [stream.subarray(0, a), stream.subarray(a, b), stream.subarray(b)]) {
        cutter.push(chunk);
        for (let e = cutter.next(); e; e = cutter.next()) out.push({ flags: e.flags, payload: [...e.payload] });
      }
      expect(out, `cut at ${a}, ${b}`).toEqual([...payloads.slice(0, 3).map((p) => ({ flags: 0, payload: p })), { flags: 2, payload: [9] }]);
      expect(cutter.pending).toBe(false);
    }
  }
});

test("an envelope within one chunk is a view of it; one that straddles is a copy", () => {
  const cutter = new EnvelopeCutter();
  cutter.push(stream.subarray(0, 10));
  const first = cutter.next()!;
  expect(first.payload.buffer).toBe(stream.buffer);
  cutter.push(stream.subarray(10));
  expect(cutter.next()!.payload).toEqual(new Uint8Array());
  const straddling = new EnvelopeCutter();
  straddling.push(stream.subarray(0, 6));
  straddling.push(stream.subarray(6));
  expect(straddling.next()!.payload.buffer).not.toBe(stream.buffer);
});

test("a stream that ends inside an envelope leaves bytes pending", () => {
  const cutter = new EnvelopeCutter();
  cutter.push(stream.subarray(0, 12));
  cutter.next();
  expect(cutter.next()).toBeUndefined();
  expect(cutter.pending).toBe(true);
});
