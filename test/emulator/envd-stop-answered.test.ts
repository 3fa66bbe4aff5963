/**
 * A sandbox that stops cuts only the answers still being written (./envd-kill-reset.test.ts). An answer
 * already complete is left alone even when Node has not yet let go of it: a keep-alive client may by then
 * have sent its next request on that connection, and against the emulator, which serves the API and the
 * sandboxes on one origin, that request can be the kill that stops the sandbox. Cutting it reset the
 * kill's own connection (in the vendor's Python suite, a sync `DELETE /sandboxes/{id}` now and then).
 * Here the sandbox stops right after its answer ends, inside the handler, where that window always is.
 */
import { Agent, createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SandboxState } from "../../emulator/envd/sandboxes";

let server: Server;
let port: number;
const stopping: Promise<void>[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/answered-then-stop") {
      const sandbox = new SandboxState(undefined);
      sandbox.track(res);
      res.end("answered");
      stopping.push(sandbox.stop());
    } else res.end("next");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** GET `path` through `agent`: the body, and whether the request went on a connection used before. */
function get(agent: Agent, path: string): Promise<{ body: string; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ body, reused: req.reusedSocket }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

it("an answer complete when its sandbox stops keeps its connection: the next request goes on it", async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    expect(await get(agent, "/answered-then-stop")).toEqual({ body: "answered", reused: false });
    await Promise.all(stopping);
    expect(await get(agent, "/next")).toEqual({ body: "next", reused: true });
  } finally {
    agent.destroy();
  }
});
