/**
 * envd's control-plane routes through the sandbox URL: the proxy answers 404 "reserved for the E2B
 * control plane" for any method, for the path however it is spelled, and before it looks the
 * sandbox up; other ports and other paths are not touched.
 */
import { request, type IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTROL_PLANE_MESSAGE } from "../../emulator/envd/control-plane";
import { startBench, type Bench } from "./envd-harness";

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
  await bench.sandbox("iopen");
});
afterAll(() => bench.close());

async function call(method: string, path: string, headers: Record<string, string>): Promise<{ status: number; type: string | undefined; text: string }> {
  const url = new URL(bench.url);
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    // node:http, unlike fetch, sends the path as written (//init, /../) and lets the test set Host.
    const req = request({ host: url.hostname, port: url.port, path, method, headers: { "content-type": "application/json", ...headers } }, resolve);
    req.on("error", reject);
    req.end(method === "GET" ? undefined : "{}");
  });
  let text = "";
  for await (const chunk of res) text += String(chunk);
  return { status: res.statusCode ?? 0, type: res.headers["content-type"], text };
}

describe("control-plane routes through the sandbox URL", () => {
  it.each([
    ["POST", "/init"], ["GET", "/init"], ["POST", "/freeze"], ["POST", "/upgrade"], ["POST", "/init/"], ["POST", "//init"], ["POST", "/files/../init"], ["POST", "/%69nit"],
  ])("%s %s → 404 reserved, naming the path and not the sandbox", async (method, path) => {
    const res = await call(method, path, { "e2b-sandbox-id": "iopen" });
    expect(res.status).toBe(404);
    expect(res.type).toBe("application/json; charset=utf-8");
    const decoded = decodeURIComponent(path);
    expect(JSON.parse(res.text)).toEqual({ message: CONTROL_PLANE_MESSAGE, path: decoded, code: 404 });
  });

  it("answers the same for a sandbox that does not exist, and by host label", async () => {
    const res = await call("POST", "/init", { "e2b-sandbox-id": "igone" });
    expect(JSON.parse(res.text)).toEqual({ message: CONTROL_PLANE_MESSAGE, path: "/init", code: 404 });
    const byHost = await call("POST", "/init", { host: "49983-iopen.localhost" });
    expect(byHost.status).toBe(404);
  });

  it("leaves other ports and envd's other paths alone", async () => {
    expect((await call("POST", "/init", { host: "3000-iopen.localhost" })).status).toBe(502);
    expect((await call("POST", "/initialize", { "e2b-sandbox-id": "iopen" })).text).toBe("404 page not found\n");
  });
});
