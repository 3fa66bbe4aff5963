/**
 * What answers before envd does: routing by header or host label, the proxy's 502 answers, the
 * access token of secured sandboxes (plain JSON 401), /health and the Basic-auth user.
 */
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, endOf, rawRequest, rejection, startBench, textOf, type Bench } from "./envd-harness";

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
  await bench.sandbox("iopen");
  await bench.sandbox("isecure", { secure: true });
});
afterAll(() => bench.close());

/** A raw unary call; node:http (unlike fetch) lets the test set the Host header. */
async function call(path: string, headers: Record<string, string>, body = "{}"): Promise<{ status: number; text: string }> {
  const res = await rawRequest(bench, { path, headers: { "content-type": "application/json", ...headers }, body });
  let text = "";
  for await (const chunk of res) text += String(chunk);
  return { status: res.statusCode ?? 0, text };
}

describe("routing and the proxy's answers", () => {
  it("routes by the E2b-Sandbox-Id header and by the {port}-{id} host label", async () => {
    const byHeader = await call("/process.Process/List", { "e2b-sandbox-id": "iopen" });
    // protojson omits an empty list, as envd's answer does.
    expect(byHeader).toEqual({ status: 200, text: "{}" });
    const byHost = await call("/process.Process/List", { host: "49983-iopen.localhost:1234" });
    expect(byHost).toEqual({ status: 200, text: "{}" });
    const nowhere = await call("/process.Process/List", { host: "127.0.0.1" });
    expect(nowhere).toEqual({ status: 404, text: "not an in-sandbox request" });
  });

  it("answers 502 JSON for a sandbox that is not running", async () => {
    const res = await call("/process.Process/List", { "e2b-sandbox-id": "igone" });
    expect(res.status).toBe(502);
    expect(JSON.parse(res.text)).toEqual({ sandboxId: "igone", message: "The sandbox was not found", code: 502 });
    const health = await fetch(`${bench.url}/health`, { headers: { "e2b-sandbox-id": "igone" } });
    expect(health.status).toBe(502);
  });

  it("answers 502 for a port other than envd's", async () => {
    const res = await call("/process.Process/List", { host: "3000-iopen.localhost" });
    expect(res.status).toBe(502);
    expect(JSON.parse(res.text)).toEqual({ sandboxId: "iopen", message: "The sandbox is running but port is not open", port: 3000, code: 502 });
  });

  it("serves GET /health with 204 and unknown paths with envd's 404", async () => {
    const health = await fetch(`${bench.url}/health`, { headers: { "e2b-sandbox-id": "isecure" } });
    expect(health.status).toBe(204);
    const other = await call("/nothing/here", { "e2b-sandbox-id": "iopen" });
    expect(other).toMatchObject({ status: 404, text: "404 page not found\n" });
  });
});

describe("secured sandboxes", () => {
  const unauthorized = { code: 401, message: "unauthorized access, please provide a valid access token or method signing if supported" };

  it("answers 401 plain JSON without the token or with a wrong one (shorter, longer, or one character off)", async () => {
    const wrong = ["wrong", "", "tok-isecure-secre", "tok-isecure-secret2", "tok-isecure-secreT"];
    const attempts: Record<string, string>[] = [{}, ...wrong.map((t) => ({ "x-access-token": t }))];
    for (const headers of attempts) {
      const res = await call("/process.Process/List", { "e2b-sandbox-id": "isecure", ...headers });
      expect(res.status).toBe(401);
      expect(res.text).toBe(`${JSON.stringify(unauthorized)}\n`);
    }
  });

  it("serves calls that carry the sandbox's envdAccessToken", async () => {
    const events = await collect(bench.process("isecure", { token: "tok-isecure-secret" }).start({ process: { cmd: "echo", args: ["ok"] } }));
    expect(textOf(events, "stdout")).toBe("ok\n");
  });
});

describe("users", () => {
  it("runs as root in /root when Basic auth names root", async () => {
    const events = await collect(bench.process("iopen", { user: "root" }).start({ process: { cmd: "/bin/sh", args: ["-c", 'echo "$USER $PWD"'] } }));
    expect(textOf(events, "stdout")).toMatch(/^root .*\/sandboxes\/iopen\/root\n$/);
    expect(endOf(events)?.exitCode).toBe(0);
  });

  it("refuses an unknown user with unauthenticated 'invalid username'", async () => {
    const err = await rejection(bench.filesystem("iopen", { user: "mallory" }).listDir({ path: "/" }));
    expect(err.code).toBe(Code.Unauthenticated);
    expect(err.rawMessage).toBe("invalid username: 'mallory'");
  });
});
