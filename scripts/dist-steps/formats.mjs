// Tar and zip, as the engine and the go command read them, for `npm run dist` (../dist.mjs).
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { crc32, deflateRawSync, gzipSync } from "node:zlib";

/** The entries of a (gunzipped) tar: POSIX ustar, with pax and GNU long names. */
export function* tarEntries(buf) {
  let off = 0;
  let longName;
  while (off + 512 <= buf.length) {
    const h = buf.subarray(off, off + 512);
    if (h[0] === 0) break;
    const field = (a, b) => h.toString("utf8", a, b).replace(/\0[\s\S]*$/, "");
    const size = parseInt(field(124, 136).trim() || "0", 8);
    const type = String.fromCharCode(h[156] || 0x30);
    const posix = h.toString("latin1", 257, 263) === "ustar\0";
    let name = posix && field(345, 500) ? `${field(345, 500)}/${field(0, 100)}` : field(0, 100);
    const data = buf.subarray(off + 512, off + 512 + size);
    off += 512 + Math.ceil(size / 512) * 512;
    if (type === "x") {
      longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(data.toString("utf8"))?.[1] ?? longName;
      continue;
    }
    if (type === "L") {
      longName = data.toString("utf8").replace(/\0[\s\S]*$/, "");
      continue;
    }
    if (longName) [name, longName] = [longName, undefined];
    yield { name, type, data };
  }
}

/** A tar of `files` ({ name, mode, data }), owned by root, every file at `mtime`. */
export function tar(files, mtime) {
  const octal = (n, width) => `${n.toString(8).padStart(width - 1, "0")}\0`;
  const parts = [];
  for (const { name, mode, data } of files) {
    if (Buffer.byteLength(name) > 100) throw new Error(`tar: name too long: ${name}`);
    const h = Buffer.alloc(512);
    h.write(name, 0, "utf8");
    h.write(octal(mode, 8), 100, "latin1");
    h.write(octal(0, 8), 108, "latin1");
    h.write(octal(0, 8), 116, "latin1");
    h.write(octal(data.length, 12), 124, "latin1");
    h.write(octal(mtime, 12), 136, "latin1");
    h.fill(0x20, 148, 156);
    h.write("0", 156, "latin1");
    h.write("ustar\0" + "00", 257, "latin1");
    h.write("root", 265, "latin1");
    h.write("root", 297, "latin1");
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
    parts.push(h, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** gzip -9n when the machine has gzip (it compresses node 3% smaller than Node's zlib), else zlib at level 9. */
export function gzip(data) {
  return new Promise((resolve) => {
    const child = spawn("gzip", ["-9n"], { stdio: ["pipe", "pipe", "ignore"] });
    const out = [];
    child.on("error", () => resolve(gzipSync(data, { level: 9 })));
    child.stdout.on("data", (d) => out.push(d));
    child.on("close", (code) => resolve(code === 0 ? Buffer.concat(out) : gzipSync(data, { level: 9 })));
    child.stdin.on("error", () => {});
    child.stdin.end(data);
  });
}

/** A zip of `files` ({ name, data }), deflated, every file at `mtime`, as golang.org/x/mod/zip makes module zips. */
export function zip(files, mtime) {
  const d = new Date(Math.max(mtime, 315532800) * 1000);
  const dosTime = (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1);
  const dosDate = ((d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate();
  const locals = [];
  const central = [];
  let offset = 0;
  for (const { name, data } of files) {
    const packed = deflateRawSync(data, { level: 9 });
    const nameBytes = Buffer.from(name, "utf8");
    const crc = crc32(data);
    const common = (h, at) => {
      h.writeUInt16LE(20, at); // version needed
      h.writeUInt16LE(0x0800, at + 2); // UTF-8 names
      h.writeUInt16LE(8, at + 4); // deflate
      h.writeUInt16LE(dosTime, at + 6);
      h.writeUInt16LE(dosDate, at + 8);
      h.writeUInt32LE(crc, at + 10);
      h.writeUInt32LE(packed.length, at + 14);
      h.writeUInt32LE(data.length, at + 18);
      h.writeUInt16LE(nameBytes.length, at + 22);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    common(local, 4);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4); // version made by
    common(entry, 6);
    entry.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed);
    central.push(entry, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

export function* walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) yield* walk(p);
    else yield p;
  }
}
