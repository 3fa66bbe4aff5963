/**
 * A sandbox that stops cuts the streams open to it with a TCP reset, not an orderly close: the
 * Python SDK (e2b-dev/E2B: packages/python-sdk/e2b/envd/rpc.py, is_transport_failure) reports "the
 * sandbox was killed" only for a transport error, and reads a clean close in the middle of a chunked
 * body as a protocol error instead. Read here on a raw socket, where the two differ: a reset is a
 * `read ECONNRESET` error, a close only an `end`.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { envelope, startBench, type Bench } from "./envd-harness";

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
  await bench.sandbox("ikilled");
});
afterAll(() => bench.close());

it("a process stream open when its sandbox stops ends in a connection reset", async () => {
  const url = new URL(bench.url);
  const socket = connect(Number(url.port), url.hostname);
  const body = envelope({ process: { cmd: "/bin/sh", args: ["-c", "sleep 60"] } });
  const head = [
    "POST /process.Process/Start HTTP/1.1", `Host: ${url.host}`, "E2b-Sandbox-Id: ikilled",
    "Content-Type: application/connect+json", `Content-Length: ${body.length}`, "", "",
  ].join("\r\n");
  socket.write(Buffer.concat([Buffer.from(head), body]));
  let seen = "";
  const ended = new Promise<string>((resolve) => {
    socket.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      // Stop the sandbox once the command is running (its start event came), as a kill does.
      if (seen.includes('"start"') && !seen.includes("\u0000stopped")) {
        seen += "\u0000stopped";
        bench.stop("ikilled");
      }
    });
    socket.on("error", (err: NodeJS.ErrnoException) => resolve(`error ${err.syscall ?? ""} ${err.code ?? ""}`.trim()));
    socket.on("end", () => resolve("end"));
  });
  expect(await ended).toBe("error read ECONNRESET");
  expect(seen).toContain("HTTP/1.1 200");
});
