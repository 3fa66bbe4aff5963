/**
 * Sandbox `ports` and `urls`: the provider's methods against the emulator, whose sandboxes serve
 * their ports through its proxy, each in its own network namespace (docs/service.md#sandbox-ports).
 */
import { describe, expect, test } from "vitest";
import { UNKNOWN } from "../../provider/spec";
import { callsSince, checked, checkReasons, emulatorForFile, lastSeq, runtime } from "./harness";
import { openUrl, serveCommand } from "./open-url";

const emu = emulatorForFile();
const port = () => new URL(emu().sandboxUrl).port;
const serving = (text: string) => ({ commands: [{ command: serveCommand(8000, text) }] });

describe("check", () => {
  test("each bad port is named by its place in the list, with the rule", async () => {
    expect(await checkReasons("Sandbox", { templateID: "base", ports: [0, 8000.5, 70000, 49983, "80"] })).toEqual([
      "ports[0]: must be a port from 1 to 65535",
      "ports[1]: must be a whole port number",
      "ports[2]: must be a port from 1 to 65535",
      "ports[3]: 49983 is the in-sandbox API's own port (envd); serve on another one",
      "ports[4]: must be a port number",
    ]);
    expect(await checkReasons("Sandbox", { templateID: "base", ports: [8000, 8000] })).toEqual(["ports: must not list a port twice"]);
    expect(await checkReasons("Sandbox", { templateID: "base", ports: 8000 })).toEqual(["ports: must be a list of port numbers"]);
  });

  test("ports not known until apply (preview) pass", async () => {
    expect(await checked("Sandbox", { templateID: "base", ports: UNKNOWN })).toMatchObject({ ports: UNKNOWN });
  });
});

describe("a sandbox serving a port", () => {
  let inputs: Record<string, unknown>;
  let id: string;
  let outs: Record<string, unknown>;

  test("create reports the URL of each declared port, and the URL answers from the sandbox", async () => {
    inputs = await checked("Sandbox", { templateID: "base", timeoutSeconds: 300, ports: [8000], provision: serving("from one"), __resource: "proj/dev/web" });
    ({ id, outs } = await runtime.create("Sandbox", inputs));
    expect(outs.urls).toEqual({ 8000: `http://8000-${id}.localhost:${port()}` });
    expect(await openUrl((outs.urls as Record<string, string>)["8000"]!)).toEqual({ status: 200, body: "from one" });
  });

  test("diff: a change of ports is an update, never a replacement, known or not", async () => {
    const diff = (news: Record<string, unknown>) => runtime.diff("Sandbox", id, outs, news);
    expect(await diff(inputs)).toMatchObject({ changes: false });
    expect(await diff({ ...inputs, ports: [8000, 9000] })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(await diff({ ...inputs, ports: UNKNOWN })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });

  test("update of ports makes no call that changes anything, and reports the new URLs", async () => {
    const since = lastSeq(emu());
    const news = await checked("Sandbox", { ...inputs, ports: [8000, 9000] }, inputs);
    const res = await runtime.update("Sandbox", id, outs, news);
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([]);
    expect(res.outs.urls).toEqual({ 8000: `http://8000-${id}.localhost:${port()}`, 9000: `http://9000-${id}.localhost:${port()}` });
    expect(await openUrl((res.outs.urls as Record<string, string>)["9000"]!)).toMatchObject({ status: 502 });
    outs = res.outs;
  });

  test("read keeps the URLs", async () => {
    const res = await runtime.read("Sandbox", id, outs);
    expect(res.props?.urls).toEqual(outs.urls);
  });

  test("a second sandbox serving the same port answers its own content", async () => {
    const other = await checked("Sandbox", { templateID: "base", timeoutSeconds: 300, ports: [8000], provision: serving("from two"), __resource: "proj/dev/web2" });
    const made = await runtime.create("Sandbox", other);
    expect(await openUrl((made.outs.urls as Record<string, string>)["8000"]!)).toEqual({ status: 200, body: "from two" });
    expect(await openUrl((outs.urls as Record<string, string>)["8000"]!)).toEqual({ status: 200, body: "from one" });
    await runtime.remove("Sandbox", made.id, made.outs);
    await runtime.remove("Sandbox", id, outs);
  });
});

test("with public traffic off, the URL needs the traffic token the sandbox reports", async () => {
  const inputs = await checked("Sandbox", {
    templateID: "base", timeoutSeconds: 300, secure: true, network: { allowPublicTraffic: false }, ports: [8000], provision: serving("private"),
    __resource: "proj/dev/private",
  });
  const { id, outs } = await runtime.create("Sandbox", inputs);
  const url = (outs.urls as Record<string, string>)["8000"]!;
  expect(outs.trafficAccessToken).toEqual(expect.any(String));
  expect(await openUrl(url)).toMatchObject({ status: 403 });
  expect(await openUrl(url, { "e2b-traffic-access-token": String(outs.trafficAccessToken) })).toEqual({ status: 200, body: "private" });
  await runtime.remove("Sandbox", id, outs);
});
