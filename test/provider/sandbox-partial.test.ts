/**
 * Sandbox: a create that fails after the service gave the sandbox its ID records it (a partial create,
 * provider/runtime/partial.ts), so the next `up` finds it by state. Before, it was left to its marker,
 * and a claimed one (./sandbox.test.ts) was passed over by the re-run, which made a second sandbox.
 * A create that never learned an ID leaves an unclaimed sandbox, which the re-run adopts by its marker.
 */
import { describe, expect, test } from "vitest";
import { madeFrom } from "../../provider/kinds/sandbox/sandbox";
import { standingOf } from "../../provider/kinds/sandbox/claim";
import { PROVIDER_RETRY } from "../../provider/runtime/context";
import { callsSince, capturedStderr, checked, configureFor, stackConfig, emulatorForFile, expectPlainJSON, lastSeq, loseAnswerTo, PROVIDER_TEXT, rejection, rest, runtime } from "./harness";

const emu = emulatorForFile();
// The pace of the provider's retries only (every attempt still happens): a failing call here is a few
// hundred milliseconds rather than the ~20 s its backoff takes against a service.
Object.assign(PROVIDER_RETRY, { baseDelayMs: 5, maxDelayMs: 20 });
const stderr = capturedStderr();

/** The sandboxes carrying the marker of the resource keyed `key` (generation 0). */
const marked = (key: string) => emu().state.sandboxes().filter((s) => s.metadata["pulumi-sandbox.resource"] === `${key}#0`).map((s) => s.sandboxID);

/** Calls `fn` once, at the first request line logged that starts with `request`. */
function onFirst(request: string, fn: () => void): () => void {
  const stop = emu().onRequest((line) => {
    if (!line.startsWith(`${request} `) && !line.startsWith(`${request}?`)) return;
    stop();
    fn();
  });
  return stop;
}

/**
 * Runs `fn` as the next `up`'s provider process would: with a client of its own, so no list of the
 * stack this process took in the last 10 s answers it (provider/kinds/sandbox/adoption.ts SNAPSHOT_MS).
 */
async function asNextUp<T>(fn: () => Promise<T>): Promise<T> {
  const config = stackConfig(emu());
  runtime.configure({ config: { get: (key) => (key === "sandbox:requestTimeoutMs" ? "60001" : config.get(key)) } });
  try {
    return await fn();
  } finally {
    configureFor(emu());
  }
}

const RECORDED = "It is recorded in the stack's state: the next `pulumi up` finishes it, `pulumi destroy` deletes it.";

describe("a failure after the sandbox exists is a partial create", () => {
  test("a files-only pause refused (503: the guest agent does not answer): recorded, and the next up pauses it", async () => {
    const key = "proj/partial/paused";
    // The provisioning's second lets the switch land before the pause.
    const inputs = await checked("Sandbox", { templateID: "base", state: "paused", pauseMode: "filesystem", timeoutSeconds: 300, provision: { commands: [{ command: "sleep 1" }] }, __resource: key });
    let switched: Promise<Response> | undefined;
    onFirst("POST /v2/sandboxes", () => void (switched = rest(emu(), "POST", `/_emulator/sandboxes/${marked(key)[0]}/envd`, { responsive: false })));
    const err = await rejection(runtime.create("Sandbox", inputs));
    expect((await switched)?.status).toBe(204);
    expect(marked(key)).toEqual([err.id]);
    expect(err.message).toBe(
      `Sandbox ${err.id} was made, but its create failed after: POST /sandboxes/{id}/pause failed (503 unavailable): Sandbox '${err.id}' cannot be paused: ` +
        `its guest agent is not responding and a filesystem-only pause needs it; the sandbox keeps running, retry later (gave up after 10 attempts)\n${RECORDED}`,
    );
    expect(err.properties).toMatchObject({ sandboxID: err.id, state: "running", provisioned: false, __provider: PROVIDER_TEXT });
    expectPlainJSON(err.properties, "properties");
    // Claimed before the pause: unrecorded, the re-run passed it over and made a second sandbox.
    expect(await standingOf(err.id!)).toBe("claimed");

    // The next `up` updates what state records: its provisioning ran (not again), then the pause.
    await rest(emu(), "POST", `/_emulator/sandboxes/${err.id}/envd`, { responsive: true });
    stderr.clear();
    const { outs } = await runtime.update("Sandbox", err.id!, err.properties!, inputs);
    expect(outs).toMatchObject({ sandboxID: err.id, state: "paused", provisioned: true });
    expect(stderr.text()).toContain("provision 1/1: $ sleep 1 succeeded in an earlier, interrupted run; not run again");
    expect(marked(key)).toEqual([err.id]);
    await runtime.remove("Sandbox", err.id!, outs);
  });

  test("the clean-up after a repeated create fails (its listing answers 503): the sandbox made is recorded", async () => {
    const key = "proj/repeated/box";
    const inputs = await checked("Sandbox", { templateID: "base", __resource: key });
    const since = lastSeq(emu());
    // The first create's answer is lost; the sdk repeats it with its idempotency key, and from that
    // answer on every request fails: the look for other sandboxes of the same create among them.
    const release = loseAnswerTo(emu(), "POST /v2/sandboxes", "GET /v2/sandboxes");
    let posts = 0;
    const stop = emu().onRequest((line) => line.startsWith("POST /v2/sandboxes ") && ++posts === 2 && (stop(), emu().setFaults({ rate503: 1 })));
    const err = await rejection(runtime.create("Sandbox", inputs).finally(release));
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual(["POST /v2/sandboxes", "POST /v2/sandboxes"]);
    expect(marked(key)).toEqual([err.id]);
    expect(err.message).toMatch(new RegExp(`^Sandbox ${err.id} was made, but its create failed after: .*503.*\\n`));
    expect(err.message.split("\n")[1]).toBe(RECORDED);
    expect(err.properties).toMatchObject({ sandboxID: err.id, state: "running", provisioned: false, __provider: PROVIDER_TEXT });
    await runtime.remove("Sandbox", err.id!, err.properties!);
  });
});

describe("a failure before the create knows an ID leaves what a re-run adopts", () => {
  test("the look for earlier runs' sandboxes fails: nothing is made, and the next up adopts the killed run's sandbox", async () => {
    const key = "proj/lookup/box";
    const inputs = await checked("Sandbox", { templateID: "base", __resource: key });
    const made = await rest(emu(), "POST", "/sandboxes", {
      templateID: "base",
      // A killed run's: its create's nonce, and no claim inside.
      metadata: { "pulumi-sandbox.resource": `${key}#0`, "pulumi-sandbox.stack": "proj/lookup", "pulumi-sandbox.inputs": madeFrom(inputs), "pulumi-sandbox.nonce": "0123456789abcdef" },
    });
    const { sandboxID } = (await made.json()) as { sandboxID: string };
    const since = lastSeq(emu());
    emu().setFaults({ rate503: 1 });
    const err = await rejection(runtime.create("Sandbox", inputs).finally(() => emu().setFaults({})));
    expect(err.id).toBeUndefined();
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([]);
    const rerun = await checked("Sandbox", { templateID: "base", __resource: key });
    const { id, outs } = await runtime.create("Sandbox", rerun);
    expect(id).toBe(sandboxID);
    expect(marked(key)).toEqual([sandboxID]);
    await runtime.remove("Sandbox", id, outs);
  });

  test("a create whose outcome is still unknown after every retry: the next up finds its sandbox by the marker", async () => {
    const key = "proj/unknown/box";
    const inputs = await checked("Sandbox", { templateID: "base", timeoutSeconds: 300, __resource: key });
    // Every request is handled and its answer lost: the creates (one sandbox: one idempotency key), then the look-ups.
    const release = loseAnswerTo(emu(), "nothing", "GET /v2/sandboxes");
    const err = await rejection(runtime.create("Sandbox", inputs).finally(release));
    expect(err.id).toBeUndefined();
    const [made] = marked(key);
    expect(marked(key)).toHaveLength(1);
    // Its create never finished, so nothing claimed it: the re-run, checked anew (another nonce), adopts it.
    expect(await standingOf(made!)).toBe("unclaimed");
    stderr.clear();
    const rerun = await checked("Sandbox", { templateID: "base", timeoutSeconds: 300, __resource: key });
    expect(rerun.__nonce).not.toBe(inputs.__nonce);
    const { id, outs } = await asNextUp(() => runtime.create("Sandbox", rerun));
    expect(id).toBe(made);
    expect(stderr.text()).toContain(`adopting sandbox ${made} made by an interrupted run`);
    expect(marked(key)).toEqual([made]);
    await runtime.remove("Sandbox", id, outs);
  });
});
