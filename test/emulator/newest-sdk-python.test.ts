/**
 * Today's service (issue 39) through E2B's newest official Python SDK, PyPI `e2b` 2.63.0, unmodified:
 * one venv for the file (`pip install e2b==2.63.0`), one Python process that runs each test's
 * steps (the SDK imported once), the emulator answering from this process. The SDK's public API
 * where it has the feature; its generated API client (`e2b.api.client`, part of the package) where
 * only that reaches it. Each test checks what the emulator answered, and, from the emulator's
 * exchanges, what the SDK sent.
 *
 * - Creates: no `timeout` (the SDK sends none; 300 s), `secure` ignored by the SDK and never sent,
 *   POST /v2/sandboxes/{id}/connect with `memory` (`on_resume`). The `Idempotency-Key` is
 *   idempotent-create.test.ts's.
 * - Retries: an unmarked 503 on pause and on connect (the fault switch `rate503`, seeded), a 429 with
 *   `Retry-After: 1` on create (`rate429`), the guest agent's 503 on pause. `Should-Retry: true` on a
 *   status the SDK would not retry otherwise is idempotent-create.test.ts's (its 409).
 *   Not reached: `Should-Retry: false`. The SDK obeys it (e2b/retry.py), but no answer of the emulator
 *   carries it, so nothing here can show it.
 * - Pause and snapshots: `pause(mode=…)`, `pause(strict=True)` (`requireHealthyGuest`), `pauseMode`
 *   (generated SandboxDetail), `envd_unresponsive_at_pause` (SandboxInfo, listed and detailed),
 *   GuestUnresponsiveException, `create_snapshot(mode="filesystem")`, `lifecycle.on_timeout` with a mode.
 * - Network: `https_ports` (49983 refused), `dns_servers`, wildcard rule domains, `egress_proxy.tls`
 *   (the SDK's forms; `enabled: false` with a server name only through the generated client, as the
 *   SDK refuses to build it), `allow_public_traffic: None` (sent as null), `update_network`.
 * - Templates: `min_free_disk_mb`, the upload `headers`, `is_default`/`description` and
 *   GET /default-templates, the tag history routes (generated client), one build source.
 * - envd: `EntryInfo.is_symlink` through `files.list` and `files.get_info`.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Exchange } from "../../emulator/exchanges";
import { Faults, type FaultKind } from "../../emulator/faults";
import { BASE_TEMPLATE_ID } from "../../emulator/store/templates";
import type { Emulator } from "../../emulator";
import { startSandboxImage, type SandboxImage } from "../fixtures/sandbox-image";
import { startEmulator, useEmulator } from "./platform-helpers";

const run = promisify(execFile);
const exchanges: Exchange[] = [];
const env = useEmulator({ onExchange: (x) => exchanges.push(x) });
/** Headers of each PUT to an upload URL, as the server received them. */
const uploads: IncomingMessage["headers"][] = [];

/** The steps' runtime: each request a JSON line `{id, code}`, the code an async function's body. */
const DRIVER = `
import asyncio, dataclasses, datetime, enum, json, sys, textwrap, time, traceback
from e2b import AsyncSandbox, AsyncTemplate, SandboxQuery, SandboxState
from e2b.api.client.api.sandboxes import get_sandboxes_sandbox_id, post_v2_sandboxes
from e2b.api.client.api.tags import (get_templates_template_id_tags_count as tags_count,
    get_templates_template_id_tags_exists as tags_exists, get_templates_template_id_tags_groups as tags_groups,
    get_templates_template_id_tags_tag_assignments as tags_assignments)
from e2b.api.client.api.templates import (get_default_templates, get_templates_template_id,
    post_v3_templates, post_v_2_templates_template_id_builds_build_id as start_build)
from e2b.api.client.models import (NewSandboxV2, SandboxEgressProxyConfigType0, SandboxEgressProxyTLSConfigType0,
    SandboxNetworkConfig, TemplateBuildRequestV3, TemplateBuildStartV2)
from e2b.api.client.types import Unset
from e2b.api.client_async import get_api_client
from e2b.connection_config import ConnectionConfig

S = {}

def api():
    return get_api_client(ConnectionConfig())

async def detail(sandbox_id):
    """The sandbox's detail as the generated client reads it, in wire form."""
    return (await get_sandboxes_sandbox_id.asyncio_detailed(sandbox_id, client=api())).parsed.to_dict()

async def refusal(awaitable):
    try:
        await awaitable
    except Exception as e:
        return {"type": type(e).__name__, "message": str(e), "status": getattr(e, "status_code", None)}
    return None

def parsed(res):
    return {"status": res.status_code, "body": json.loads(res.content) if res.content else None}

def plain(v):
    if hasattr(v, "to_dict"):
        return v.to_dict()
    if dataclasses.is_dataclass(v):
        return {f.name: plain(getattr(v, f.name)) for f in dataclasses.fields(v)}
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, datetime.datetime):
        return v.isoformat()
    if isinstance(v, enum.Enum):
        return v.value
    if isinstance(v, Unset):
        return "UNSET"
    return v

async def main():
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**24)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    scope = globals()
    while line := await reader.readline():
        req = json.loads(line)
        try:
            exec("async def __step():\\n" + textwrap.indent(req["code"], "    "), scope)
            out = json.dumps({"id": req["id"], "value": plain(await scope["__step"]())}, default=str)
        except Exception:
            out = json.dumps({"id": req["id"], "error": traceback.format_exc()})
        sys.stdout.write(out + "\\n")
        sys.stdout.flush()

asyncio.run(main())
`;

/** One Python process running the SDK; `run` sends it a step and resolves with what the step returned. */
class PythonSdk {
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private next = 0;
  private stderr = "";
  private exited: string | undefined;

  constructor(private readonly proc: ChildProcessWithoutNullStreams) {
    createInterface({ input: proc.stdout }).on("line", (line) => {
      const msg = JSON.parse(line) as { id: number; value?: unknown; error?: string };
      const waiter = this.waiting.get(msg.id);
      this.waiting.delete(msg.id);
      if (msg.error !== undefined) waiter?.reject(new Error(`the Python step failed:\n${msg.error}`));
      else waiter?.resolve(msg.value);
    });
    proc.stderr.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
    proc.on("exit", (code) => {
      this.exited = `python exited (${String(code)}): ${this.stderr}`;
      for (const w of this.waiting.values()) w.reject(new Error(this.exited));
      this.waiting.clear();
    });
  }

  /** Runs `code` (dedented) as the body of an async function; `S` keeps values between steps. */
  // Steps return arbitrary JSON, read field by field.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  run(code: string): Promise<any> {
    if (this.exited !== undefined) return Promise.reject(new Error(this.exited));
    const id = ++this.next;
    const lines = code.split("\n").filter((l, i, all) => l.trim() !== "" || (i > 0 && i < all.length - 1));
    const indent = Math.min(...lines.filter((l) => l.trim() !== "").map((l) => l.length - l.trimStart().length));
    const body = lines.map((l) => l.slice(indent)).join("\n");
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.proc.stdin.write(`${JSON.stringify({ id, code: body })}\n`);
    });
  }

  close(): void {
    this.proc.stdin.end();
    this.proc.kill();
  }
}

let dir = "";
let py: PythonSdk;

beforeAll(async () => {
  env.emu.server.prependListener("request", (req: IncomingMessage) => {
    if (req.method === "PUT" && req.url?.startsWith("/_uploads/")) uploads.push({ ...req.headers });
  });
  dir = mkdtempSync(join(tmpdir(), "newest-sdk-python-"));
  await run("python3", ["-m", "venv", join(dir, "venv")]);
  const python = join(dir, "venv", "bin", "python");
  await run(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "e2b==2.63.0"], { timeout: 280_000 });
  writeFileSync(join(dir, "driver.py"), DRIVER);
  writeFileSync(join(dir, "hello.txt"), "hello from the context\n");
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(childEnv)) if (name.startsWith("E2B_")) delete childEnv[name];
  Object.assign(childEnv, { E2B_API_KEY: env.emu.apiKey, E2B_API_URL: env.emu.apiUrl, E2B_SANDBOX_URL: env.emu.sandboxUrl });
  py = new PythonSdk(spawn(python, [join(dir, "driver.py")], { env: childEnv, cwd: dir }));
  await py.run("return 1");
}, 300_000);
afterAll(() => {
  py?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The exchanges from index `since` on whose method and path match. */
const sent = (since: number, method: string, path: string | RegExp) =>
  exchanges.slice(since).filter((x) => x.method === method && (typeof path === "string" ? x.path === path : path.test(x.path)));
const HEX64 = /^[0-9a-f]{64}$/;
const markEnvd = (id: string, responsive: boolean) => env.c.post(`/_emulator/sandboxes/${id}/envd`, { responsive });

/** A fault seed whose first decisions refuse as `want` says (undefined: let through). */
function seedFor(settings: { rate503?: number; rate429?: number }, want: (FaultKind | undefined)[]): number {
  for (let seed = 1; seed < 100_000; seed++) {
    const faults = new Faults({ ...settings, faultSeed: seed });
    if (want.every((w) => faults.decide().before === w)) return seed;
  }
  throw new Error("no seed found");
}

/** The platform calls since `since` to `method path`: their status and fault. */
const callsTo = (since: number, method: string, path: string) =>
  env.emu.calls(since).filter((c) => c.method === method && c.path === path).map((c) => ({ status: c.status, fault: c.fault, time: c.time }));

describe("creates and connects", () => {
  test("create with no timeout: none is sent and the sandbox lives 300 s; `secure` is not sent, every sandbox is secured and may close public traffic", async () => {
    const since = exchanges.length;
    const made = await py.run(`
      s = await AsyncSandbox.create("base", secure=False, network={"allow_public_traffic": False})
      S["defaults"] = s
      info = await s.get_info()
      ran = await s.commands.run("echo secured")
      return {"id": s.sandbox_id, "token": s._envd_access_token, "traffic": s.traffic_access_token,
              "lives": (info.end_at - info.started_at).total_seconds(), "network": info.network, "out": ran.stdout}
    `);
    const [create] = sent(since, "POST", "/v2/sandboxes");
    expect(create?.status).toBe(201);
    expect(create?.requestBody).not.toHaveProperty("timeout");
    expect(create?.requestBody).not.toHaveProperty("secure");
    expect(made.lives).toBe(300);
    expect(made.token).toMatch(HEX64);
    expect(made.traffic).toMatch(HEX64);
    expect(made.network).toEqual({ allow_public_traffic: false });
    expect(made.out).toBe("secured\n");
    // envd of a secured sandbox refuses a call without the token.
    const bare = await fetch(`${env.emu.sandboxUrl}/files?path=/etc/hostname`, { headers: { "e2b-sandbox-id": made.id } });
    expect(bare.status).toBe(401);
  });

  test("connect: restore sends no memory and keeps processes; reboot sends memory false and cold-boots; no timeout means 300 s", async () => {
    const since = exchanges.length;
    const out = await py.run(`
      s = await AsyncSandbox.create("base", timeout=60)
      cmd = await s.commands.run("sleep 3600", background=True)
      boot = lambda: s.commands.run("cat /proc/sys/kernel/random/boot_id")
      first = (await boot()).stdout
      await s.connect()
      await s.pause()
      back = await AsyncSandbox.connect(s.sandbox_id)
      info = await back.get_info()
      kept = cmd.pid in [p.pid for p in await back.commands.list()]
      await back.pause()
      await back.connect(on_resume="reboot")
      gone = cmd.pid not in [p.pid for p in await back.commands.list()]
      return {"id": s.sandbox_id, "left": (info.end_at - datetime.datetime.now(datetime.timezone.utc)).total_seconds(),
              "kept": kept, "gone": gone, "sameBoot": first == (await boot()).stdout}
    `);
    const connects = sent(since, "POST", `/v2/sandboxes/${out.id}/connect`);
    expect(connects.map((x) => [x.status, x.requestBody])).toEqual([[200, {}], [201, {}], [201, { memory: false }]]);
    expect(out.left).toBeGreaterThan(290);
    expect(out.left).toBeLessThanOrEqual(300);
    expect(out.kept).toBe(true);
    expect(out.gone).toBe(true);
    expect(out.sameBoot).toBe(false);
  });
});

describe("retries", () => {
  test("an unmarked 503 on pause is sent again until it passes", async () => {
    const { id } = await py.run(`S["retry"] = await AsyncSandbox.create("base", timeout=60); return {"id": S["retry"].sandbox_id}`);
    const since = env.emu.calls().at(-1)?.seq ?? 0;
    env.emu.setFaults({ rate503: 0.5, faultSeed: seedFor({ rate503: 0.5 }, ["rate503", "rate503", undefined]) });
    const paused = await py.run(`return await S["retry"].pause()`).finally(() => env.emu.setFaults({}));
    expect(paused).toBe(true);
    expect(callsTo(since, "POST", `/sandboxes/${id}/pause`).map(({ status, fault }) => [status, fault])).toEqual([[503, "rate503"], [503, "rate503"], [204, undefined]]);
    expect((await env.c.get(`/sandboxes/${id}`)).body.state).toBe("paused");
  });

  test("an unmarked 503 on resume (connect) is sent again until it passes", async () => {
    const id = (await py.run(`return S["retry"].sandbox_id`)) as string;
    const since = env.emu.calls().at(-1)?.seq ?? 0;
    env.emu.setFaults({ rate503: 0.5, faultSeed: seedFor({ rate503: 0.5 }, ["rate503", undefined]) });
    await py.run(`await S["retry"].connect()`).finally(() => env.emu.setFaults({}));
    expect(callsTo(since, "POST", `/v2/sandboxes/${id}/connect`).map(({ status, fault }) => [status, fault])).toEqual([[503, "rate503"], [201, undefined]]);
    expect((await env.c.get(`/sandboxes/${id}`)).body.state).toBe("running");
  });

  test("a 429 with Retry-After: 1 is waited out for a second, then sent again", async () => {
    const since = env.emu.calls().at(-1)?.seq ?? 0;
    env.emu.setFaults({ rate429: 0.5, faultSeed: seedFor({ rate429: 0.5 }, ["rate429", undefined]) });
    const out = await py.run(`
      t = time.monotonic()
      s = await AsyncSandbox.create("base", timeout=60)
      return {"id": s.sandbox_id, "took": time.monotonic() - t}
    `).finally(() => env.emu.setFaults({}));
    const creates = callsTo(since, "POST", "/v2/sandboxes");
    expect(creates.map(({ status, fault }) => [status, fault])).toEqual([[429, "rate429"], [201, undefined]]);
    expect(Date.parse(creates[1]!.time) - Date.parse(creates[0]!.time)).toBeGreaterThanOrEqual(1000);
    expect(out.took).toBeGreaterThanOrEqual(1);
    expect((await env.c.get(`/sandboxes/${out.id}`)).status).toBe(200);
  });
});

describe("pause modes and a guest agent that does not answer", () => {
  test("pause(mode=…) sends memory; the generated SandboxDetail reads pauseMode; a filesystem pause cold-boots", async () => {
    const since = exchanges.length;
    const out = await py.run(`
      s = await AsyncSandbox.create("base", timeout=60)
      cmd = await s.commands.run("sleep 3600", background=True)
      await s.files.write("/home/user/kept.txt", "kept")
      await s.pause(mode="full")
      full = await detail(s.sandbox_id)
      await s.connect()
      running = await detail(s.sandbox_id)
      await s.pause(mode="filesystem")
      files = await detail(s.sandbox_id)
      await s.connect()
      return {"id": s.sandbox_id, "full": [full["state"], full.get("pauseMode")], "running": "pauseMode" in running,
              "files": [files["state"], files.get("pauseMode")], "read": await s.files.read("/home/user/kept.txt"),
              "gone": cmd.pid not in [p.pid for p in await s.commands.list()]}
    `);
    expect(sent(since, "POST", `/sandboxes/${out.id}/pause`).map((x) => [x.status, x.requestBody])).toEqual([[204, { memory: true }], [204, { memory: false }]]);
    expect(out.full).toEqual(["paused", "full"]);
    expect(out.running).toBe(false);
    expect(out.files).toEqual(["paused", "filesystem"]);
    expect(out.read).toBe("kept");
    expect(out.gone).toBe(true);
  });

  test("strict=True (requireHealthyGuest) and mode='filesystem' meet the 503, retried, then ServiceBusyException; the sandbox runs on", async () => {
    const { id } = await py.run(`S["guest"] = await AsyncSandbox.create("base", timeout=60); return {"id": S["guest"].sandbox_id}`);
    expect((await markEnvd(id, false)).status).toBe(204);
    const since = env.emu.calls().at(-1)?.seq ?? 0;
    const exSince = exchanges.length;
    const out = await py.run(`
      s = S["guest"]
      return {"strict": await refusal(s.pause(strict=True)), "files": await refusal(s.pause(mode="filesystem")),
              "state": (await s.get_info()).state}
    `);
    const busy = (why: string) => ({
      type: "ServiceBusyException", status: 503,
      message: `503: Service temporarily unavailable, please retry. - Sandbox '${id}' cannot be paused: its guest agent is not responding and ${why}; the sandbox keeps running, retry later`,
    });
    expect(out.strict).toEqual(busy("requireHealthyGuest was set"));
    expect(out.files).toEqual(busy("a filesystem-only pause needs it"));
    expect(out.state).toBe("running");
    // Each pause: the first try and the SDK's 3 retries (an unmarked 503).
    expect(callsTo(since, "POST", `/sandboxes/${id}/pause`).map((c) => c.status)).toEqual(Array(8).fill(503));
    expect(sent(exSince, "POST", `/sandboxes/${id}/pause`).map((x) => x.requestBody)).toEqual([...Array(4).fill({ requireHealthyGuest: true }), ...Array(4).fill({ memory: false })]);
  });

  test("a plain pause goes on: envd_unresponsive_at_pause (info, list, detail); connect raises GuestUnresponsiveException; reboot resumes", async () => {
    const id = (await py.run(`return S["guest"].sandbox_id`)) as string;
    const out = await py.run(`
      s = S["guest"]
      paused = await s.pause()
      info = await s.get_info()
      listed = [x for x in await AsyncSandbox.list(query=SandboxQuery(state=[SandboxState.PAUSED])).next_items() if x.sandbox_id == s.sandbox_id]
      d = await detail(s.sandbox_id)
      plain_connect = await refusal(AsyncSandbox.connect(s.sandbox_id))
      await AsyncSandbox.connect(s.sandbox_id, on_resume="reboot")
      after = await s.get_info()
      return {"paused": paused, "info": info.envd_unresponsive_at_pause, "listed": [x.envd_unresponsive_at_pause for x in listed],
              "detail": [d.get("envdUnresponsiveAtPause"), d.get("pauseMode")], "connect": plain_connect,
              "after": [after.state, after.envd_unresponsive_at_pause]}
    `);
    expect(out.paused).toBe(true);
    expect(out.info).toBe(true);
    expect(out.listed).toEqual([true]);
    expect(out.detail).toEqual([true, "full"]);
    expect(out.connect).toEqual({
      type: "GuestUnresponsiveException", status: 409,
      message: `Sandbox '${id}' was paused while its guest agent was not responding; resume it without memory (memory: false). Resume the sandbox with on_resume="reboot".`,
    });
    expect(out.after).toEqual(["running", null]);
  });

  test("create_snapshot(mode='filesystem') sends memory false; the source runs on and a sandbox from it has the files", async () => {
    const since = exchanges.length;
    const out = await py.run(`
      s = await AsyncSandbox.create("base", timeout=60)
      await s.files.write("/home/user/snap.txt", "from-snapshot")
      snap = await s.create_snapshot(mode="filesystem")
      child = await AsyncSandbox.create(snap.snapshot_id, timeout=60)
      return {"id": s.sandbox_id, "snapshot": snap.snapshot_id, "state": (await s.get_info()).state,
              "read": await child.files.read("/home/user/snap.txt")}
    `);
    const [taken] = sent(since, "POST", `/sandboxes/${out.id}/snapshots`);
    expect([taken?.status, taken?.requestBody]).toEqual([201, { memory: false }]);
    expect(out.snapshot).toMatch(/^[a-z0-9]{20}:default$/);
    expect(out.state).toBe("running");
    expect(out.read).toBe("from-snapshot");
  });

  test("lifecycle on_timeout {action: pause, mode: filesystem}: sent as autoPause and autoPauseMemory false; the timeout's pause saves the files only", async () => {
    const since = exchanges.length;
    const out = await py.run(`
      s = await AsyncSandbox.create("base", timeout=1, lifecycle={"on_timeout": {"action": "pause", "mode": "filesystem"}})
      for _ in range(200):
          d = await detail(s.sandbox_id)
          if "pauseMode" in d:
              break
          await asyncio.sleep(0.05)
      return {"detail": [d["state"], d.get("pauseMode")], "lifecycle": (await s.get_info()).lifecycle}
    `);
    const [create] = sent(since, "POST", "/v2/sandboxes");
    expect(create?.requestBody).toMatchObject({ timeout: 1, autoPause: true, autoPauseMemory: false });
    expect(out.detail).toEqual(["paused", "filesystem"]);
    expect(out.lifecycle).toEqual({ on_timeout: "pause", auto_resume: false });
  });
});

describe("network", () => {
  test("https_ports, dns_servers and wildcard rule domains are sent, kept and read back; update_network replaces them", async () => {
    const since = exchanges.length;
    const out = await py.run(`
      rule = [{"transform": {"headers": {"X-Key": "v"}}}]
      s = await AsyncSandbox.create("base", timeout=60, network={"https_ports": [8443], "allow_out": ["*.example.com"],
          "deny_out": ["0.0.0.0/0"], "dns_servers": ["1.1.1.1", "9.9.9.9"], "rules": {"*.Example.com": rule, "api.example.com": rule}})
      made = (await s.get_info()).network
      await s.update_network({"dns_servers": ["8.8.4.4"], "rules": {"*.COM": rule}})
      updated = (await s.get_info()).network
      await s.update_network({})
      return {"made": made, "updated": updated, "cleared": (await s.get_info()).network}
    `);
    const rule = [{ transform: { headers: { "X-Key": "v" } } }];
    expect(sent(since, "POST", "/v2/sandboxes")[0]?.requestBody).toMatchObject({
      network: { httpsPorts: [8443], dnsServers: ["1.1.1.1", "9.9.9.9"], rules: { "*.Example.com": rule } },
    });
    expect(out.made).toEqual({
      allow_out: ["*.example.com"], deny_out: ["0.0.0.0/0"], dns_servers: ["1.1.1.1", "9.9.9.9"], https_ports: [8443],
      rules: { "*.example.com": rule, "api.example.com": rule },
    });
    expect(out.updated).toEqual({ dns_servers: ["8.8.4.4"], https_ports: [8443], rules: { "*.com": rule } });
    // Leaving dns_servers out goes back to the default (none kept); https_ports is fixed at creation.
    expect(out.cleared).toEqual({ https_ports: [8443] });
  });

  test("refusals reach the SDK as SandboxException with the emulator's status and message", async () => {
    const out = await py.run(`
      create = lambda network: refusal(AsyncSandbox.create("base", timeout=60, network=network))
      rule = [{"transform": {"headers": {"X-Key": "v"}}}]
      return [await create({"https_ports": [443, 49983]}), await create({"dns_servers": ["8.8.8.8", "2001:4860:4860::8888"]}),
              await create({"rules": {"*": rule}}), await create({"rules": {"a.*.example.com": rule}})]
    `);
    const refused = (message: string) => ({ type: "SandboxException", status: 400, message: `400: ${message}` });
    expect(out).toEqual([
      refused("httpsPorts cannot include 49983: it is envd's port, which the proxy always reaches itself"),
      refused('dnsServers entry "2001:4860:4860::8888" is not an IPv4 address'),
      refused('Rule domain "*" is not a valid domain name.'),
      refused('Rule domain "a.*.example.com" is not a valid domain name.'),
    ]);
  });

  test("egress_proxy.tls: the SDK's forms meet the team's gate (403); enabled false with a server name is a 400 (generated client)", async () => {
    const since = exchanges.length;
    const out = await py.run(`
      proxy = lambda tls: {"egress_proxy": {"address": "proxy.example.com:1080", "tls": tls}}
      gated = [await refusal(AsyncSandbox.create("base", timeout=60, network=proxy(tls))) for tls in (True, {"server_name": "proxy", "ca_cert": "-----BEGIN CERTIFICATE-----"})]
      s = await AsyncSandbox.create("base", timeout=60)
      gated.append(await refusal(s.update_network({"egress_proxy": {"address": "proxy.example.com:1080", "tls": True}})))
      tls = SandboxEgressProxyTLSConfigType0(enabled=False, server_name="proxy")
      body = NewSandboxV2(template_id="base", network=SandboxNetworkConfig(egress_proxy=SandboxEgressProxyConfigType0(address="proxy.example.com:1080", tls=tls)))
      return {"gated": gated, "off": parsed(await post_v2_sandboxes.asyncio_detailed(client=api(), body=body))}
    `);
    const gate = { type: "SandboxException", status: 403, message: "403: Egress proxy (egressProxy) is not enabled for this team." };
    expect(out.gated).toEqual([gate, gate, gate]);
    expect(sent(since, "POST", "/v2/sandboxes").slice(0, 2).map((x) => (x.requestBody as { network: { egressProxy: unknown } }).network.egressProxy)).toEqual([
      { address: "proxy.example.com:1080", tls: { enabled: true } },
      { address: "proxy.example.com:1080", tls: { enabled: true, serverName: "proxy", caCert: "-----BEGIN CERTIFICATE-----" } },
    ]);
    expect(out.off).toEqual({ status: 400, body: { code: 400, message: "egressProxy.tls: with enabled false, no other field (serverName, caCert) may be set" } });
  });

  test("allow_public_traffic None is sent as null: public, no traffic token, nothing kept", async () => {
    const since = exchanges.length;
    const out = await py.run(`
      s = await AsyncSandbox.create("base", timeout=60, network={"allow_public_traffic": None, "mask_request_host": "x.test"})
      return {"traffic": s.traffic_access_token, "network": (await s.get_info()).network}
    `);
    expect((sent(since, "POST", "/v2/sandboxes")[0]?.requestBody as { network: unknown }).network).toEqual({ allowPublicTraffic: null, maskRequestHost: "x.test" });
    expect(out).toEqual({ traffic: null, network: { mask_request_host: "x.test" } });
  });
});

describe("templates", () => {
  test("min_free_disk_mb is sent on POST /v3/templates and becomes the build's and its sandboxes' disk", async () => {
    const since = exchanges.length;
    const out = await py.run(`
      b = await AsyncTemplate.build(AsyncTemplate().from_image("e2bdev/base"), "py-disk", min_free_disk_mb=20480)
      S["own"] = b.template_id
      t = (await get_templates_template_id.asyncio_detailed(b.template_id, client=api())).parsed
      s = await AsyncSandbox.create("py-disk", timeout=60)
      bad = await refusal(AsyncTemplate.build(AsyncTemplate().from_image("e2bdev/base"), "py-disk-bad", min_free_disk_mb=-1))
      return {"disk": t.disk_size_mb, "builds": [[x.build_id, x.disk_size_mb] for x in t.builds], "build": b.build_id,
              "sandbox": (await detail(s.sandbox_id))["diskSizeMB"], "bad": bad}
    `);
    expect(sent(since, "POST", "/v3/templates")[0]?.requestBody).toMatchObject({ name: "py-disk", minFreeDiskMb: 20480 });
    expect(out.disk).toBe(20480);
    expect(out.builds).toEqual([[out.build, 20480]]);
    expect(out.sandbox).toBe(20480);
    // The SDK does not check the value; the emulator's 400 comes back as a BuildException.
    expect(out.bad).toEqual({
      type: "BuildException", status: null, message: '400: validation error: request body has an error: Error at "/minFreeDiskMb": number must be at least 0',
    });
  });

  test("the upload link's headers are sent with the upload, and the build gets the file", async () => {
    const since = exchanges.length;
    const before = uploads.length;
    const read = await py.run(`
      t = AsyncTemplate(file_context_path=".").from_image("e2bdev/base").copy("hello.txt", "/home/user/hello.txt")
      await AsyncTemplate.build(t, "py-upload")
      s = await AsyncSandbox.create("py-upload", timeout=60)
      return await s.files.read("/home/user/hello.txt")
    `);
    const [link] = sent(since, "GET", /^\/templates\/[^/]+\/files\/[0-9a-f]{64}$/);
    const issued = (link?.responseBody as { headers: Record<string, string> }).headers;
    expect(Object.keys(issued)).toEqual(["x-emulator-upload-key"]);
    expect(uploads.slice(before).map((h) => h["x-emulator-upload-key"])).toEqual([issued["x-emulator-upload-key"]]);
    expect(read).toBe("hello from the context\n");
  });

  test("is_default and description (generated Template and TemplateWithBuilds); GET /default-templates lists base", async () => {
    const out = await py.run(`
      defaults = (await get_default_templates.asyncio_detailed(client=api())).parsed
      base = (await get_templates_template_id.asyncio_detailed(defaults[0].template_id, client=api())).parsed
      own = (await get_templates_template_id.asyncio_detailed(S["own"], client=api())).parsed
      return {"defaults": [[t.template_id, t.is_default, t.description, t.aliases, t.spawn_count, t.created_by] for t in defaults],
              "base": [base.is_default, base.description], "own": [plain(own.is_default), plain(own.description)]}
    `);
    expect(out.defaults).toEqual([[BASE_TEMPLATE_ID, true, "The emulator's built-in base template", ["base"], 0, null]]);
    expect(out.base).toEqual([true, "The emulator's built-in base template"]);
    expect(out.own).toEqual(["UNSET", "UNSET"]);
  });

  test("tag history through the generated client: count, exists, groups, assignments; 404 and 400", async () => {
    const out = await py.run(`
      b1 = await AsyncTemplate.build(AsyncTemplate().from_image("e2bdev/base"), "py-history")
      await asyncio.sleep(0.01)
      b2 = await AsyncTemplate.build(AsyncTemplate().from_image("e2bdev/base").run_cmd("echo two"), "py-history", tags=["stable", "gone"])
      await asyncio.sleep(0.01)
      await AsyncTemplate.assign_tags(f"py-history:{b1.build_id}", "stable")
      await AsyncTemplate.remove_tags("py-history", "gone")
      tid, c = b1.template_id, api()
      return {"b1": b1.build_id, "b2": b2.build_id,
              "count": parsed(await tags_count.asyncio_detailed(tid, client=c)),
              "exists": [parsed(await tags_exists.asyncio_detailed(tid, client=c, tag=t)) for t in (" Stable ", "gone")],
              "groups": parsed(await tags_groups.asyncio_detailed(tid, client=c, assignment_limit=1)),
              "assignments": parsed(await tags_assignments.asyncio_detailed(tid, "stable", client=c)),
              "unknown": parsed(await tags_count.asyncio_detailed("nosuchtemplate", client=c)),
              "badTag": parsed(await tags_exists.asyncio_detailed(tid, client=c, tag="no spaces"))}
    `);
    const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const assignment = (buildId: string) => ({ assignmentId: expect.stringMatching(/^[0-9a-f-]{36}$/), buildId, assignedAt: ISO, buildCreatedAt: ISO, buildFinishedAt: ISO });
    expect(out.count).toEqual({ status: 200, body: { total: 2 } });
    expect(out.exists).toEqual([{ status: 200, body: { exists: true, normalizedTag: "stable" } }, { status: 200, body: { exists: false, normalizedTag: "gone" } }]);
    expect(out.assignments).toEqual({ status: 200, body: { data: [assignment(out.b1), assignment(out.b2)], nextCursor: null } });
    expect(out.groups).toEqual({
      status: 200,
      body: { tags: [{ tag: "stable", assignments: [assignment(out.b1)], hasMore: true }, { tag: "default", assignments: [assignment(out.b1)], hasMore: false }], nextCursor: null },
    });
    expect(out.unknown).toEqual({ status: 404, body: { code: 404, message: "Template 'nosuchtemplate' not found" } });
    expect(out.badTag).toEqual({ status: 400, body: { code: 400, message: "Invalid tag 'no spaces': use lowercase letters, numbers, '-', '_' and '.', and not a UUID" } });
  });

  test("a build start names exactly one source: the SDK's from_template sends only fromTemplate; both or neither is a 400", async () => {
    const since = exchanges.length;
    const out = await py.run(`
      b = await AsyncTemplate.build(AsyncTemplate().from_template("base"), "py-one-source")
      c = api()
      req = (await post_v3_templates.asyncio_detailed(client=c, body=TemplateBuildRequestV3(name="py-two-sources"))).parsed
      start = lambda body: start_build.asyncio_detailed(req.template_id, req.build_id, client=c, body=body)
      return {"id": b.template_id, "both": parsed(await start(TemplateBuildStartV2(from_image="e2bdev/base", from_template="base"))),
              "neither": parsed(await start(TemplateBuildStartV2(steps=[])))}
    `);
    const [started] = sent(since, "POST", new RegExp(`^/v2/templates/${out.id}/builds/`));
    expect(started?.status).toBe(202);
    expect(started?.requestBody).toHaveProperty("fromTemplate", "base");
    expect(started?.requestBody).not.toHaveProperty("fromImage");
    expect(out.both).toEqual({ status: 400, body: { code: 400, message: "cannot specify both fromImage and fromTemplate" } });
    expect(out.neither).toEqual({ status: 400, body: { code: 400, message: "must specify either fromImage or fromTemplate" } });
  });
});

describe("envd", () => {
  test("EntryInfo.is_symlink: files.list and files.get_info report a link as FileType.SYMLINK with its target", async () => {
    const out = await py.run(`
      s = await AsyncSandbox.create("base", timeout=60)
      await s.commands.run("mkdir -p ~/links/dir && echo hi > ~/links/file.txt && ln -s ~/links/file.txt ~/links/to-file && ln -s ~/links/dir ~/links/to-dir")
      entries = await s.files.list("/home/user/links")
      return {"list": [[e.name, e.type.value, e.symlink_target] for e in entries],
              "stat": [(await s.files.get_info(p)).type.value for p in ("/home/user/links/to-file", "/home/user/links/to-dir", "/home/user/links/file.txt")]}
    `);
    expect(out.list).toEqual([
      ["dir", "dir", null],
      ["file.txt", "file", null],
      ["to-dir", "symlink", "/home/user/links/dir"],
      ["to-file", "symlink", "/home/user/links/file.txt"],
    ]);
    expect(out.stat).toEqual(["symlink", "symlink", "file"]);
  });
});

describe("a template from an image on a registry (issue 49)", () => {
  let pushed: SandboxImage;
  let pulling: Emulator;

  beforeAll(async () => {
    pushed = await startSandboxImage();
    // The file's emulator runs on the host's dirs (vitest.config.mts); this one pulls.
    pulling = await startEmulator({ images: "registry" });
  }, 120_000);
  afterAll(async () => {
    await pulling?.close();
    await pushed?.close();
  });

  test("Template().from_image(...).run_cmd(...) builds over the image, and a sandbox of it runs a command there", async () => {
    const at = JSON.stringify({ api_key: pulling.apiKey, api_url: pulling.apiUrl, sandbox_url: pulling.sandboxUrl });
    const out = await py.run(`
      at = json.loads('${at}')
      t = AsyncTemplate().from_image("${pushed.image}").run_cmd("echo installed > /usr/local/bin/marker", user="root")
      b = await AsyncTemplate.build(t, "py-from-image", **at)
      s = await AsyncSandbox.create("py-from-image", timeout=60, **at)
      r = await s.commands.run("cat /usr/local/bin/marker; grep ^ID= /etc/os-release; echo $IMAGE_GREETING; echo $E2B_SANDBOX_ID")
      await s.kill()
      return {"stdout": r.stdout, "sandbox": s.sandbox_id}
    `);
    if (pulling.isolation.mode !== "namespaces") return;
    expect(out.stdout).toBe(`installed\nID=busybox\nfrom the image\n${String(out.sandbox)}\n`);
  });
});
