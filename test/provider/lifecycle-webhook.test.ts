/**
 * LifecycleWebhook through the provider's methods against the emulator: what `check` refuses at
 * preview (naming the field, never the URL or the secret), create (every type when `events` is left
 * out), read (the secret is never read back; an import's diff takes the program's), every input as one
 * PATCH, gone after a delete elsewhere, and a create whose answer is lost or which a killed run made.
 */
import { describe, expect, test } from "vitest";
import { LIFECYCLE_EVENT_TYPES } from "../../sdk/schemas/events";
import { withKnownInputs } from "../../provider/plugin/adapter";
import { callsSince, capturedStderr, checked, checkReasons, emulatorForFile, lastSeq, loseAnswerTo, rest, runtime } from "./harness";

const emu = emulatorForFile();
const stderr = capturedStderr();
const SECRET = "whsec-provider-7f3a";
const URL_WITH_TOKEN = "https://hooks.example.com/e2b?token=t0k3n-in-url-91d2";

type Obj = Record<string, unknown>;
const webhooks = async () => (await (await rest(emu(), "GET", "/events/webhooks")).json()) as Obj[];
/** A webhook as the service answers it (never its secret: the e2e test checks the secret by the signatures). */
const served = async (id: string) => (await (await rest(emu(), "GET", `/events/webhooks/${id}`)).json()) as Obj;

describe("check", () => {
  test("a bad URL, an unknown or repeated event, no event: each names its field, before any call, and quotes no URL", async () => {
    const since = lastSeq(emu());
    expect(await checkReasons("LifecycleWebhook", { url: "ftp://x.example.com/", signatureSecret: SECRET, events: ["sandbox.lifecycle.created", "sandbox.lifecycle.created"] })).toEqual([
      "url: must be an absolute http:// or https:// URL",
      "events: must not name an event type twice",
    ]);
    expect(await checkReasons("LifecycleWebhook", { url: "hooks.example.com/e2b?token=t0k3n", signatureSecret: "", events: ["sandbox.created"] })).toEqual([
      "url: must be an absolute http:// or https:// URL",
      `events[0]: must be one of ${LIFECYCLE_EVENT_TYPES.join(", ")}`,
      "signatureSecret: must not be empty",
    ]);
    expect(await checkReasons("LifecycleWebhook", { url: URL_WITH_TOKEN, events: [] })).toEqual(["events: must name at least one event type", "signatureSecret: is required"]);
    expect(callsSince(emu(), since)).toEqual([]);
  });

  test("a missing name is a stable auto-name; `enabled` defaults to true; `events` left out stays out (the create sends every type)", async () => {
    const a = await checked("LifecycleWebhook", { url: URL_WITH_TOKEN, signatureSecret: SECRET, __resource: "proj/dev/audit" });
    expect(a).toMatchObject({ name: expect.stringMatching(/^audit-[0-9a-f]{8}$/), enabled: true });
    expect(a).not.toHaveProperty("events");
    expect((await checked("LifecycleWebhook", { url: URL_WITH_TOKEN, signatureSecret: SECRET, __resource: "proj/dev/audit" })).name).toBe(a.name);
  });
});

describe("lifecycle", () => {
  let inputs: Obj;
  let made: { id: string; outs: Obj };

  test("create sends one POST with every type; read keeps the program's secret, and an import's diff plans nothing", async () => {
    inputs = await checked("LifecycleWebhook", { url: URL_WITH_TOKEN, signatureSecret: SECRET, __resource: "proj/dev/hook", __secrets: [SECRET] });
    const since = lastSeq(emu());
    made = await runtime.create("LifecycleWebhook", inputs);
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual(["POST /events/webhooks"]);
    expect(made.outs).toMatchObject({ webhookID: made.id, name: inputs.name, enabled: true, events: [...LIFECYCLE_EVENT_TYPES], signatureSecret: SECRET });
    expect(await served(made.id)).toMatchObject({ events: [...LIFECYCLE_EVENT_TYPES] });
    expect(await runtime.read("LifecycleWebhook", made.id, made.outs)).toEqual({ id: made.id, props: made.outs });
    expect(await runtime.diff("LifecycleWebhook", made.id, made.outs, inputs)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    const imported = (await runtime.read("LifecycleWebhook", made.id, {})).props!;
    expect(imported).not.toHaveProperty("signatureSecret");
    const olds = withKnownInputs("LifecycleWebhook", imported, undefined, inputs);
    expect(await runtime.diff("LifecycleWebhook", made.id, { ...olds, __resource: inputs.__resource }, inputs)).toMatchObject({ changes: false });
  });

  test("a new secret, URL, name, `enabled` or events list is one PATCH of the same webhook, sending every input", async () => {
    const news = await checked("LifecycleWebhook", { ...inputs, name: "renamed", enabled: false, events: ["sandbox.lifecycle.killed"], signatureSecret: "whsec-rotated-19bd", __secrets: ["whsec-rotated-19bd"] }, made.outs);
    expect(await runtime.diff("LifecycleWebhook", made.id, made.outs, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const since = lastSeq(emu());
    const { outs } = await runtime.update("LifecycleWebhook", made.id, made.outs, news);
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([`PATCH /events/webhooks/${made.id}`]);
    expect(outs).toMatchObject({ webhookID: made.id, name: "renamed", enabled: false, events: ["sandbox.lifecycle.killed"] });
    expect(await served(made.id)).toMatchObject({ name: "renamed", enabled: false, url: URL_WITH_TOKEN });
    // Left out later, `events` keeps the webhook's list: no change.
    expect(await runtime.diff("LifecycleWebhook", made.id, outs, { ...news, events: undefined })).toMatchObject({ changes: false });
    made = { id: made.id, outs };
  });

  test("deleted elsewhere: refresh drops it, delete is done", async () => {
    expect((await rest(emu(), "DELETE", `/events/webhooks/${made.id}`)).status).toBe(204);
    expect(await runtime.read("LifecycleWebhook", made.id, made.outs)).toEqual({});
    await runtime.remove("LifecycleWebhook", made.id, made.outs);
    expect(stderr.text()).not.toContain(SECRET);
    expect(stderr.text()).not.toContain("t0k3n-in-url-91d2");
  });
});

describe("creates whose outcome is unknown", () => {
  test("an auto-named create whose answer is lost finds its webhook by name: one webhook", async () => {
    const inputs = await checked("LifecycleWebhook", { url: URL_WITH_TOKEN, signatureSecret: SECRET, __resource: "proj/lost/hook" });
    // After the look-up for a killed run's webhook, which finds none.
    const stop = loseAnswerTo(emu(), "POST /events/webhooks", "GET /events/webhooks");
    try {
      const made = await runtime.create("LifecycleWebhook", inputs);
      expect((await webhooks()).filter((w) => w.name === inputs.name).map((w) => w.id)).toEqual([made.id]);
      await runtime.remove("LifecycleWebhook", made.id, made.outs);
    } finally {
      stop();
    }
  });

  test("a webhook under the auto-name (a killed run's create) is adopted and given the program's inputs", async () => {
    const inputs = await checked("LifecycleWebhook", { url: URL_WITH_TOKEN, signatureSecret: SECRET, events: ["sandbox.lifecycle.paused"], __resource: "proj/killed/hook" });
    const earlier = (await (await rest(emu(), "POST", "/events/webhooks", { name: inputs.name, url: "https://old.example.com/", events: ["sandbox.lifecycle.created"], signatureSecret: "old-secret-0a1b" })).json()) as { id: string };
    const since = lastSeq(emu());
    const made = await runtime.create("LifecycleWebhook", inputs);
    expect(made.id).toBe(earlier.id);
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([`PATCH /events/webhooks/${earlier.id}`]);
    expect(await served(earlier.id)).toMatchObject({ url: URL_WITH_TOKEN, events: ["sandbox.lifecycle.paused"] });
    expect(stderr.text()).toContain(`adopting webhook ${earlier.id}, made under this resource's name by an interrupted run`);
    await runtime.remove("LifecycleWebhook", made.id, made.outs);
  });

  test("a create under a name the program chose is not repeated after a lost answer: the webhook could be anyone's", async () => {
    const inputs = await checked("LifecycleWebhook", { name: "chosen", url: URL_WITH_TOKEN, signatureSecret: SECRET });
    const stop = loseAnswerTo(emu(), "POST /events/webhooks");
    try {
      await expect(runtime.create("LifecycleWebhook", inputs)).rejects.toThrow(
        '; not repeated, because the service may have processed it. The webhook "chosen" may have been registered: look for it in the team\'s webhooks (GET /events/webhooks), then import it',
      );
      expect((await webhooks()).filter((w) => w.name === "chosen")).toHaveLength(1);
    } finally {
      stop();
    }
  });
});
