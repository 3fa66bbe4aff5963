/**
 * An idle keep-alive connection stays open as long as the service keeps one (620 s), not Node's 5 s (and 1 s of buffer).
 * The vendor's Python suite sleeps 6 s between two calls (tests/async/sandbox_async/test_timeout.py):
 * with a 5 s idle limit its client reused a socket the emulator had closed and met a reset.
 * Read on one raw socket, so the test sees the very connection the first answer came on.
 */
import { connect } from "node:net";
import { expect, it } from "vitest";
import { useEmulator } from "./platform-helpers";

const t = useEmulator();
const IDLE_MS = 6_500;

it("a keep-alive connection idle for longer than 6 s still answers", async () => {
  const url = new URL(t.emu.apiUrl);
  const socket = connect(Number(url.port), url.hostname);
  let seen = "";
  let closed = false;
  socket.on("data", (chunk: Buffer) => (seen += chunk.toString()));
  socket.on("close", () => (closed = true));
  const ask = () => socket.write(`GET /health HTTP/1.1\r\nHost: ${url.host}\r\nConnection: keep-alive\r\n\r\n`);
  const answers = () => seen.split("HTTP/1.1 200").length - 1;
  const waitAnswers = async (n: number) => {
    for (let i = 0; i < 500 && answers() < n && !closed; i++) await new Promise((r) => setTimeout(r, 10));
  };
  ask();
  await waitAnswers(1);
  expect(answers()).toBe(1);
  await new Promise((r) => setTimeout(r, IDLE_MS));
  expect(closed, "the emulator closed the idle connection").toBe(false);
  ask();
  await waitAnswers(2);
  expect(answers()).toBe(2);
  socket.destroy();
}, 20_000);
