// Worker of bench 2: one command printing `bytes` bytes to stdout, read to the end by one client
// (`pipe` reads it from a local child process: the bound). `codec` picks the Connect codec of `ours`
// (through its env fallback) and of `bare`. Prints its time, the bytes seen, and the process's CPU
// time (user + system, ms) and RSS before the command and at its peak (maxRSS, bytes).
import { spawn } from "node:child_process";
import { request } from "undici";
import { CLIENTS } from "./clients.mjs";

const { client, service, bytes, codec = "binary" } = JSON.parse(process.argv[2]);
const command = `head -c ${bytes} /dev/zero | tr '\\0' a`;

async function viaPipe() {
  const child = spawn("/bin/bash", ["-l", "-c", command], { stdio: ["ignore", "pipe", "inherit"] });
  let seen = 0;
  let tail = Buffer.alloc(0);
  for await (const chunk of child.stdout) {
    seen += chunk.length;
    tail = chunk.subarray(-4096); // keep what `run` keeps: a bounded tail
  }
  return { stdoutBytes: seen, tail: tail.length };
}

/**
 * Bare Connect in either codec: one process.Process/Start call by hand (undici), its envelopes cut
 * and read with no sdk and no generated code. The binary reader walks the protobuf fields it needs
 * (StartResponse.event=1 → ProcessEvent.data=2 → DataEvent.stdout=1; .end=3 → EndEvent.exit_code=1).
 */
function bareIn(codec) {
  const base = CLIENTS.bare(service);
  const run = async (sbx, cmd) => {
    const args = ["-l", "-c", cmd];
    const msg =
      codec === "json"
        ? Buffer.from(JSON.stringify({ process: { cmd: "/bin/bash", args }, stdin: false }))
        : field(1, Buffer.concat([field(1, Buffer.from("/bin/bash")), ...args.map((a) => field(2, Buffer.from(a)))]));
    const envelope = Buffer.alloc(5 + msg.length);
    envelope.writeUInt32BE(msg.length, 1);
    msg.copy(envelope, 5);
    const headers = {
      "content-type": codec === "json" ? "application/connect+json" : "application/connect+proto",
      "connect-protocol-version": "1",
      "e2b-sandbox-id": sbx.sandboxID,
      "e2b-sandbox-port": "49983",
      ...(sbx.envdAccessToken ? { "x-access-token": sbx.envdAccessToken } : {}),
    };
    const res = await request(`${service.sandboxUrl}/process.Process/Start`, { method: "POST", headers, body: envelope });
    if (res.statusCode !== 200) throw new Error(`Start: HTTP ${res.statusCode}`);
    const r = { exitCode: undefined, stdoutBytes: 0 };
    for await (const [flags, payload] of envelopes(res.body)) {
      if (flags & 2) continue; // end of stream: `{}` on success
      if (codec === "json") {
        const ev = JSON.parse(payload.toString()).event;
        if (ev?.data?.stdout) r.stdoutBytes += Buffer.byteLength(ev.data.stdout, "base64");
        if (ev?.end) r.exitCode = ev.end.exitCode ?? 0;
      } else readProtoEvent(payload, r);
    }
    return r;
  };
  return { ...base, run };
}

/** A length-delimited protobuf field (wire type 2); lengths here stay under 2^21. */
function field(number, bytes) {
  const len = [];
  for (let n = bytes.length; ; n >>>= 7) {
    if (n < 0x80) {
      len.push(n);
      break;
    }
    len.push((n & 0x7f) | 0x80);
  }
  return Buffer.concat([Buffer.from([(number << 3) | 2, ...len]), bytes]);
}

/** Cuts a byte stream into Connect envelopes: [flags, payload]. */
async function* envelopes(body) {
  let buf = Buffer.alloc(0);
  for await (const chunk of body) {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    while (buf.length >= 5 && buf.length >= 5 + buf.readUInt32BE(1)) {
      const len = buf.readUInt32BE(1);
      yield [buf[0], buf.subarray(5, 5 + len)];
      buf = buf.subarray(5 + len);
    }
  }
}

function readProtoEvent(payload, r) {
  const event = sub(payload, 0, payload.length, 1);
  if (!event) return;
  const data = sub(payload, event.start, event.end, 2);
  if (data) {
    const out = sub(payload, data.start, data.end, 1);
    if (out) r.stdoutBytes += out.end - out.start;
    return;
  }
  const end = sub(payload, event.start, event.end, 3);
  if (end) {
    r.exitCode = 0;
    for (let i = end.start; i < end.end; ) {
      const [tag, at] = varint(payload, i);
      const [value, next] = varint(payload, at);
      if (tag >>> 3 === 1 && (tag & 7) === 0) r.exitCode = (value >>> 1) ^ -(value & 1);
      i = (tag & 7) === 2 ? next + value : next; // only varints and strings in EndEvent
    }
  }
}

/** The span of field `number` (length-delimited) in buf[from, to), skipping other fields. */
function sub(buf, from, to, number) {
  for (let i = from; i < to; ) {
    const [tag, at] = varint(buf, i);
    const type = tag & 7;
    const [value, next] = varint(buf, at);
    if (type === 2 && tag >>> 3 === number) return { start: next, end: next + value };
    i = type === 2 ? next + value : next;
  }
  return undefined;
}

function varint(buf, i) {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    const b = buf[i++];
    value += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return [value, i];
  }
}

let run;
let c;
if (client === "pipe") run = viaPipe;
else {
  // Ours reads its codec from its env fallback (config.ts), as a user's process would.
  if (client === "ours") process.env.PULUMI_SANDBOX_RPC_CODEC = codec;
  c = client === "bare" ? bareIn(codec) : await CLIENTS[client](service);
  const sbx = await c.create();
  run = async () => {
    try {
      return await c.run(sbx, command);
    } finally {
      await c.kill(sbx);
    }
  };
}
global.gc?.();
const rssBefore = process.memoryUsage().rss;
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const r = await run();
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
if (r.stdoutBytes !== bytes) throw new Error(`${client}: expected ${bytes} bytes, got ${r.stdoutBytes}`);
if (client !== "pipe" && r.exitCode !== 0) throw new Error(`${client}: exit code ${r.exitCode}`);
await c?.close();
console.log(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, bytes: r.stdoutBytes, rssBefore, maxRSS: process.resourceUsage().maxRSS * 1024 }));
