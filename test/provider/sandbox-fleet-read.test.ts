/**
 * SandboxFleet refresh: a member the listing of the fleet's stack misses is asked for by its ID before
 * it is dropped. The listing is paged, newest first, and a paused member with autoResume that gets a
 * request while the pages are read resumes, which makes it the newest: it moves ahead of the page
 * being read, and no page holds it. Dropped, it was made a second time by the next `up`.
 */
import { expect, test } from "vitest";
import { stackOf } from "../../provider/resource-key";
import { checked, emulatorForFile, lastSeq, rest, runtime } from "./harness";

const emu = emulatorForFile();

type Obj = Record<string, unknown>;
const KEY = "inst-3/urn:pulumi:dev::proj::pulumi-nodejs:dynamic/sandbox:SandboxFleet::lagging";
const ids = (outs: Obj) => Object.fromEntries(Object.entries(outs.sandboxes as Record<string, { sandboxID: string }>).map(([k, v]) => [k, v.sandboxID]));

/** A request to the sandbox's in-sandbox API, as any client of it makes: it resumes a paused sandbox with autoResume. */
const touch = (id: string, token: string) => fetch(`${emu().sandboxUrl}/health`, { headers: { "E2b-Sandbox-Id": id, "E2b-Sandbox-Port": "49983", "X-Access-Token": token } });

test("a member that resumes while the listing's pages are read is asked for by its ID and kept", async () => {
  const inputs = await checked("SandboxFleet", { sandbox: { templateID: "base", timeoutSeconds: 600, autoResume: { enabled: true } }, members: { ada: {}, bob: {} }, __resource: KEY });
  const { id, outs } = await runtime.create("SandboxFleet", inputs);
  const { ada, bob } = ids(outs) as { ada: string; bob: string };
  expect((await rest(emu(), "POST", `/sandboxes/${ada}/pause`)).status).toBe(204);
  // A page's worth of the stack's newer sandboxes: the members are on the listing's second page.
  const stack = stackOf(`${KEY}/members/`);
  const others = await Promise.all(Array.from({ length: 100 }, async () => {
    const made = await rest(emu(), "POST", "/sandboxes", { templateID: "base", timeout: 600, metadata: { "pulumi-sandbox.stack": stack } });
    return ((await made.json()) as { sandboxID: string }).sandboxID;
  }));
  // Once the first page is read, ada gets a request, and the second page is answered after her resume (100 ms).
  let touched: Promise<Response> | undefined;
  const stop = emu().onRequest((line) => {
    if (!line.startsWith("GET /v2/sandboxes?")) return;
    stop();
    emu().setFaults({ latencyMs: 500 });
    touched = touch(ada, (outs.sandboxes as Record<string, { envdAccessToken: string }>).ada!.envdAccessToken);
  });
  const seq = lastSeq(emu());
  const found = (await runtime.read("SandboxFleet", id, outs).finally(() => emu().setFaults({}))).props!;
  expect((await touched)?.status).toBe(204);
  // Two pages, neither holding ada, then ada asked for by her ID.
  const platformCalls = emu().calls(seq).filter((c) => c.area === "platform" && !c.path.startsWith("/_emulator")).map((c) => `${c.method} ${c.path.split("?")[0]}`);
  expect(platformCalls).toEqual(["GET /v2/sandboxes", "GET /v2/sandboxes", `GET /sandboxes/${ada}`]);
  expect(ids(found)).toEqual({ ada, bob });
  expect(found.sandboxes).toMatchObject({ ada: { state: "running" }, bob: { state: "running" } });
  expect(found.ready).toBe(2);
  expect(found.__spent).toBeUndefined();
  await runtime.remove("SandboxFleet", id, found);
  await Promise.all(others.map((o) => rest(emu(), "DELETE", `/sandboxes/${o}`)));
});
