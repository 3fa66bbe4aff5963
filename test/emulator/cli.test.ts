/**
 * The `sandbox-emulator` command, run as a real child process: the repo's bin script against a
 * fresh build of the emulator in a temp dir (the shared dist/ is left alone), laid out as the
 * package is: bin/sandbox-emulator.js requiring ../dist/emulator/cli.js.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { Sandbox } from "e2b";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { hostSleeps } from "./host-processes";

const REPO = resolve(__dirname, "../..");
let work: string;
let bin: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "emulator-cli-test-"));
  const tsconfig = join(work, "tsconfig.json");
  writeFileSync(tsconfig, JSON.stringify({
    extends: join(REPO, "tsconfig.build.json"),
    compilerOptions: { rootDir: REPO, outDir: join(work, "dist"), typeRoots: [join(REPO, "node_modules/@types")] },
    include: [join(REPO, "emulator")],
  }));
  const tsc = spawnSync(process.execPath, [join(REPO, "node_modules/@typescript/native/bin/tsc"), "-p", tsconfig], { encoding: "utf8" });
  expect(tsc.status, `tsc failed:\n${tsc.stdout}${tsc.stderr}`).toBe(0);
  // The build's runtime dependencies (zod) resolve through the repo's node_modules.
  symlinkSync(join(REPO, "node_modules"), join(work, "node_modules"), "dir");
  mkdirSync(join(work, "bin"));
  bin = join(work, "bin", "sandbox-emulator.js");
  copyFileSync(join(REPO, "bin", "sandbox-emulator.js"), bin);
});

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(work, { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  ready: { apiUrl: string; sandboxUrl: string; apiKey: string; accessToken: string; isolation: string };
  stderr: () => string;
  exit: Promise<number | null>;
}

function start(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Running> {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"], env });
  children.push(child);
  let out = "";
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((res) => child.on("exit", (code) => res(code)));
  return new Promise((res, rej) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf("\n");
      if (nl >= 0) res({ child, ready: JSON.parse(out.slice(0, nl)), stderr: () => err, exit });
    });
    void exit.then((code) => rej(new Error(`exited ${code} before ready: ${err}`)));
  });
}

function runToEnd(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Linux as root (CI) isolates with namespaces; elsewhere the emulator says it does not. */
const expectedIsolation = process.platform === "linux" && process.getuid?.() === 0 ? "namespaces" : "none";

describe("sandbox-emulator", () => {
  test("without namespaces it says so: isolation none in the ready line, and a warning on stderr", async () => {
    const emu = await start([], { ...process.env, SANDBOX_EMULATOR_ISOLATION: "none" });
    expect(emu.ready.isolation).toBe("none");
    expect(emu.stderr()).toContain(
      "sandbox-emulator: WARNING: sandboxes are NOT isolated (SANDBOX_EMULATOR_ISOLATION=none). " +
        "Commands run as host processes with this user's rights; never run untrusted code.",
    );
    emu.child.kill("SIGTERM");
    expect(await emu.exit).toBe(0);
  });

  test("prints its endpoints first, serves the API, logs requests without the key, stops on SIGTERM with exit 0", async () => {
    // --images wins over the suite's SANDBOX_EMULATOR_IMAGES=host (vitest.config.mts).
    const emu = await start(["--api-key", "e2b_cli_key_123456", "--access-token=sk_e2b_cli_token", "--build-seconds", "0.05", "--images", "registry-or-host"]);
    expect(emu.ready).toEqual({
      apiUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), sandboxUrl: emu.ready.apiUrl,
      apiKey: "e2b_cli_key_123456", accessToken: "sk_e2b_cli_token", isolation: expectedIsolation, images: "registry-or-host",
      // The page, signed in by the fragment, which a browser never sends to a server.
      pageUrl: `${emu.ready.apiUrl}/_emulator/ui/#key=e2b_cli_key_123456`,
    });
    const res = await fetch(`${emu.ready.apiUrl}/sandboxes`, {
      method: "POST", headers: { "x-api-key": emu.ready.apiKey, "content-type": "application/json" }, body: JSON.stringify({ templateID: "base" }),
    });
    expect(res.status).toBe(201);
    const inv = (await (await fetch(`${emu.ready.apiUrl}/_emulator/inventory`, { headers: { "x-api-key": emu.ready.apiKey } })).json()) as { sandboxes: { rootDir: string }[] };
    const dataDir = dirname(dirname(inv.sandboxes[0]!.rootDir));
    expect(existsSync(dataDir)).toBe(true);
    emu.child.kill("SIGTERM");
    expect(await emu.exit).toBe(0);
    expect(emu.stderr()).toMatch(/^POST \/sandboxes 201 [\d.]+ms$/m);
    expect(emu.stderr()).not.toContain("e2b_cli_key_123456");
    expect(existsSync(dataDir)).toBe(false);
  });

  test("SIGINT also stops it with exit 0; default credentials are random in the real formats", async () => {
    const emu = await start([]);
    expect(emu.ready.apiKey).toMatch(/^e2b_[0-9a-f]{40}$/);
    expect(emu.ready.accessToken).toMatch(/^sk_e2b_[0-9a-f]{40}$/);
    emu.child.kill("SIGINT");
    expect(await emu.exit).toBe(0);
  });

  test("fault flags apply to platform routes only", async () => {
    const emu = await start(["--rate-503", "1", "--fault-seed", "5"]);
    const headers = { "x-api-key": emu.ready.apiKey };
    expect((await fetch(`${emu.ready.apiUrl}/v2/sandboxes`, { headers })).status).toBe(503);
    expect((await fetch(`${emu.ready.apiUrl}/health`)).status).toBe(200);
    emu.child.kill("SIGTERM");
    expect(await emu.exit).toBe(0);
  });

  test.each([
    [["--nope"], "unknown option '--nope'"],
    [["--port"], "option '--port' needs a value"],
    [["--port", "abc"], "option '--port' needs an integer from 0 to 65535, got 'abc'"],
    [["--rate-429", "2"], "rate429 must be between 0 and 1"],
    [["--build-seconds", "-1"], "option '--build-seconds' needs a number of 0 or more, got '-1'"],
  ])("%j → usage error on stderr, exit 2", (args, message) => {
    const r = runToEnd(args);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`sandbox-emulator: ${message}`);
    expect(r.stderr).toContain("usage: sandbox-emulator");
  });

  test("an emulator killed with SIGKILL leaves no sandbox process running", async () => {
    const marker = String(800_000_000 + process.pid); // no other run on this host sleeps this long
    const emu = await start([]);
    const opts = { apiKey: emu.ready.apiKey, apiUrl: emu.ready.apiUrl, sandboxUrl: emu.ready.sandboxUrl };
    const sandbox = await Sandbox.create("base", opts);
    await sandbox.commands.run(`sleep ${marker}`, { background: true });
    await vi.waitFor(() => expect(hostSleeps(marker)).toHaveLength(1));
    emu.child.kill("SIGKILL");
    await emu.exit;
    await vi.waitFor(() => expect(hostSleeps(marker)).toEqual([]));
  });

  test("--help prints the usage on stdout, exit 0", () => {
    const r = runToEnd(["--help"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: sandbox-emulator \[options\]/);
  });

  test("--domain: https for api.<domain> with the domain and the CA file in the ready line and on stderr; SIGTERM removes the CA", async () => {
    const emu = await start(["--domain", "localhost"]);
    const { apiUrl, domain, caFile } = emu.ready as Running["ready"] & { domain: string; caFile: string };
    expect(domain).toMatch(/^localhost:\d+$/);
    expect([apiUrl, emu.ready.sandboxUrl]).toEqual([`https://api.${domain}`, `https://api.${domain}`]);
    expect(emu.stderr()).toContain(
      `sandbox-emulator: serving https for ${domain}: a client needs E2B_DOMAIN=${domain} and the CA ${caFile} (NODE_EXTRA_CA_CERTS for Node, SSL_CERT_FILE for Python)`,
    );
    const health = spawnSync("curl", ["-sS", "--cacert", caFile, `${apiUrl}/health`], { encoding: "utf8" });
    expect(health.stdout).toBe("Health check successful");
    emu.child.kill("SIGTERM");
    expect(await emu.exit).toBe(0);
    expect(existsSync(caFile)).toBe(false);
  });

  test("--domain that is not a host name → exit 2 with the rule", () => {
    const r = runToEnd(["--domain", "https://localhost"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^sandbox-emulator: domain must be a host name with an optional port, as E2B_DOMAIN takes it \(e\.g\. localhost or localhost:8443\), got 'https:\/\/localhost'\n/);
  });

  test("a port in use → exit 1 with the reason", async () => {
    const emu = await start([]);
    const port = new URL(emu.ready.apiUrl).port;
    const r = runToEnd(["--port", port]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^sandbox-emulator: could not start: .*EADDRINUSE/);
    emu.child.kill("SIGTERM");
    expect(await emu.exit).toBe(0);
  });
});
