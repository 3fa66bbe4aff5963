/**
 * Sandbox: what the log shows and what state keeps. Secrets the program marked (`__secrets`, filled
 * by the class) are hidden at any length; values it did not mark are shown as they are. Adoption keeps
 * the tokens; a timeout change waits for a paused sandbox's resume.
 */
import { describe, expect, test } from "vitest";
import { madeFrom } from "../../provider/kinds/sandbox/sandbox";
import { callsSince, capturedStderr, checked, emulatorForFile, lastSeq, rest, runtime } from "./harness";

const emu = emulatorForFile();

/** What the provider printed for the engine's log (its stderr) while a test ran. */
const stderr = capturedStderr();
const log = stderr.text;

describe("the provisioning log", () => {
  test("hides every marked secret, however short, and nothing else", async () => {
    const inputs = await checked("Sandbox", {
      templateID: "base",
      envVars: { PLAIN: "plain-value-shown" },
      provision: { commands: [{ command: "echo token=ab; echo $PLAIN; echo err ab >&2" }] },
      __resource: "proj/dev/secretive",
      __secrets: ["ab"],
    });
    const { id, outs } = await runtime.create("Sandbox", inputs);
    expect(log()).not.toMatch(/\bab\b/);
    expect(log()).toContain("provision 1/1: $ echo token=[redacted]; echo $PLAIN; echo err [redacted] >&2");
    expect(log()).toContain("provision 1/1 | token=[redacted]");
    expect(log()).toContain("provision 1/1 | plain-value-shown");
    expect(log()).toContain("provision 1/1 ! err [redacted]");
    expect(outs.provisionResults).toMatchObject([{ command: "echo token=[redacted]; echo $PLAIN; echo err [redacted] >&2", stdoutTail: "token=[redacted]\nplain-value-shown\n" }]);
    await runtime.remove("Sandbox", id, outs);
  });

  test("a command made whole from a secret is never shown", async () => {
    const command = "echo made from a secret";
    const inputs = await checked("Sandbox", { templateID: "base", provision: { commands: [{ command }] }, __resource: "proj/dev/whole", __secrets: [command] });
    const { id, outs } = await runtime.create("Sandbox", inputs);
    expect(log()).not.toContain(command);
    expect(log()).toContain("provision 1/1: $ [redacted]");
    expect(outs.provisionResults).toMatchObject([{ command: "[redacted]", exitCode: 0 }]);
    await runtime.remove("Sandbox", id, outs);
  });

  test("stdout and stderr keep their own partial lines", async () => {
    const inputs = await checked("Sandbox", {
      templateID: "base",
      provision: { commands: [{ command: "printf 'out-start'; sleep 0.2; echo err-line >&2; sleep 0.2; echo ' out-end'" }] },
      __resource: "proj/dev/streams",
    });
    const { id, outs } = await runtime.create("Sandbox", inputs);
    expect(log()).toContain("provision 1/1 | out-start out-end\n");
    expect(log()).toContain("provision 1/1 ! err-line\n");
    await runtime.remove("Sandbox", id, outs);
  });

  test("logging chooses the streams shown; state keeps both tails", async () => {
    const command = "echo to-stdout; echo to-stderr >&2";
    for (const [logging, shown, hidden] of [["stdout", "to-stdout", "to-stderr"], ["stderr", "to-stderr", "to-stdout"], ["none", "", "to-std"]] as const) {
      stderr.clear();
      const inputs = await checked("Sandbox", { templateID: "base", provision: { commands: [{ command }], logging }, __resource: `proj/dev/log-${logging}` });
      const { id, outs } = await runtime.create("Sandbox", inputs);
      const streamed = log().split("\n").filter((l) => / [|!] /.test(l)).join("\n");
      expect(streamed, logging).not.toContain(hidden);
      if (shown) expect(streamed, logging).toContain(shown);
      expect(outs.provisionResults).toMatchObject([{ stdoutTail: "to-stdout\n", stderrTail: "to-stderr\n" }]);
      await runtime.remove("Sandbox", id, outs);
    }
  });
});

describe("state", () => {
  test("an adopted sandbox keeps its trafficAccessToken", async () => {
    // A stack this process has not listed yet, as the next `up` after an interruption is.
    const inputs = await checked("Sandbox", { templateID: "base", secure: true, network: { allowPublicTraffic: false }, __resource: "proj/adopt/private" });
    const made = await rest(emu(), "POST", "/sandboxes", {
      templateID: "base", secure: true, network: { allowPublicTraffic: false },
      // A killed run's: its create's nonce, and no claim inside (provider/kinds/sandbox/claim.ts).
      metadata: { "pulumi-sandbox.resource": "proj/adopt/private#0", "pulumi-sandbox.stack": "proj/adopt", "pulumi-sandbox.inputs": madeFrom(inputs), "pulumi-sandbox.nonce": "0123456789abcdef" },
    });
    const { sandboxID, trafficAccessToken } = (await made.json()) as { sandboxID: string; trafficAccessToken: string };
    expect(trafficAccessToken).toMatch(/\S/);
    const { id, outs } = await runtime.create("Sandbox", inputs);
    expect(id).toBe(sandboxID);
    expect(outs.trafficAccessToken).toBe(trafficAccessToken);
    await runtime.remove("Sandbox", id, outs);
  });

  test("a timeout change on a paused sandbox is recorded, not sent", async () => {
    const inputs = await checked("Sandbox", { templateID: "base", timeout: 300, __resource: "proj/dev/paused" });
    const { id, outs } = await runtime.create("Sandbox", inputs);
    expect((await rest(emu(), "POST", `/sandboxes/${id}/pause`)).status).toBe(204);
    const since = lastSeq(emu());
    const news = await checked("Sandbox", { templateID: "base", timeout: 900, __resource: "proj/dev/paused" }, outs);
    const updated = await runtime.update("Sandbox", id, outs, news);
    expect(updated.outs).toMatchObject({ timeout: 900, state: "paused" });
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([]);
    expect(log()).toContain(`sandbox ${id} is paused: timeout 900 s is recorded and applies from its next resume`);
    await runtime.remove("Sandbox", id, updated.outs);
  });

  test("an egress change is one PUT .../network with the whole rule set; the sandbox stays", async () => {
    const inputs = await checked("Sandbox", { templateID: "base", network: { denyOut: ["10.0.0.0/8"] }, __resource: "proj/dev/egress" });
    const { id, outs } = await runtime.create("Sandbox", inputs);
    const since = lastSeq(emu());
    const news = await checked("Sandbox", { templateID: "base", network: { allowOut: ["example.com"], denyOut: ["0.0.0.0/0"] }, __resource: "proj/dev/egress" }, outs);
    expect(await runtime.diff("Sandbox", id, outs, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const updated = await runtime.update("Sandbox", id, outs, news);
    expect(updated.outs).toMatchObject({ sandboxID: id, network: { allowOut: ["example.com"], denyOut: ["0.0.0.0/0"] } });
    const writes = emu().calls(since).filter((c) => c.method !== "GET");
    expect(writes.map((c) => `${c.method} ${c.path}`)).toEqual([`PUT /sandboxes/${id}/network`]);
    const detail = (await (await rest(emu(), "GET", `/sandboxes/${id}`)).json()) as { network?: { allowOut?: string[]; denyOut?: string[] } };
    expect(detail.network).toMatchObject({ allowOut: ["example.com"], denyOut: ["0.0.0.0/0"] });
    await runtime.remove("Sandbox", id, updated.outs);
  });

  test("state: paused pauses it, running resumes it, in place; a pause made elsewhere shows on read", async () => {
    const key = "proj/dev/pausable";
    const inputs = await checked("Sandbox", { templateID: "base", timeoutSeconds: 300, __resource: key });
    const { id, outs } = await runtime.create("Sandbox", inputs);
    const writes = (since: number) => emu().calls(since).filter((c) => c.method !== "GET").map((c) => `${c.method} ${c.path}`);

    const paused = await checked("Sandbox", { templateID: "base", timeoutSeconds: 300, state: "paused", __resource: key }, outs);
    expect(await runtime.diff("Sandbox", id, outs, paused)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    let since = lastSeq(emu());
    const afterPause = (await runtime.update("Sandbox", id, outs, paused)).outs;
    expect(writes(since)).toEqual([`POST /sandboxes/${id}/pause`]);
    expect(afterPause).toMatchObject({ sandboxID: id, state: "paused" });

    const running = await checked("Sandbox", { templateID: "base", timeoutSeconds: 300, state: "running", __resource: key }, afterPause);
    since = lastSeq(emu());
    const afterResume = (await runtime.update("Sandbox", id, afterPause, running)).outs;
    expect(writes(since)).toEqual([`POST /sandboxes/${id}/connect`]);
    expect(afterResume).toMatchObject({ sandboxID: id, state: "running" });

    // The service pausing it on its own (autoPause) is drift of `state`, not a sandbox gone.
    expect((await rest(emu(), "POST", `/sandboxes/${id}/pause`)).status).toBe(204);
    const read = await runtime.read("Sandbox", id, afterResume);
    expect(read).toMatchObject({ id, props: { state: "paused" } });
    expect(await runtime.diff("Sandbox", id, read.props!, running)).toMatchObject({ changes: true, replaces: [] });
    // Left out, the service's own pause is no change.
    expect(await runtime.diff("Sandbox", id, read.props!, inputs)).toMatchObject({ changes: false });
    await runtime.remove("Sandbox", id, read.props!);
  });

  test("a paused sandbox is resumed before its provisioning runs again", async () => {
    const key = "proj/dev/resume-to-provision";
    const inputs = await checked("Sandbox", { templateID: "base", provision: { commands: [{ command: "echo first" }] }, __resource: key });
    const { id, outs } = await runtime.create("Sandbox", inputs);
    expect((await rest(emu(), "POST", `/sandboxes/${id}/pause`)).status).toBe(204);
    const news = await checked("Sandbox", { templateID: "base", provision: { commands: [{ command: "echo second" }] }, __resource: key }, outs);
    const { outs: after } = await runtime.update("Sandbox", id, { ...outs, state: "paused" }, news);
    expect(after).toMatchObject({ state: "running", provisioned: true, provisionResults: [{ stdoutTail: "second\n" }] });
    await runtime.remove("Sandbox", id, after);
  });
});
