/**
 * One version, package.json's, for everything a release publishes (issue #40): schema.json, each SDK's
 * files, the plugin archives' names and the plugin's own answer to GetPluginInfo; and one address and one
 * Go module path, from package.json's `repository` (provider/schema/release.ts). The files are generated
 * (`npm run gen`), so they disagree only when gen was not run after a change: scripts/dist.mjs refuses to
 * build then, with the same check (scripts/release-facts.mjs). test/e2e/install.test.ts checks the
 * built artifacts themselves.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { plugin } from "../../provider/plugin/provider";
import { releaseOf } from "../../provider/schema/release";
// @ts-expect-error: plain ESM script, shared with npm run dist
import { archiveName, PLATFORMS } from "../../scripts/dist.mjs";
// @ts-expect-error: plain ESM script, shared with npm run dist
import { checkRelease, disagreements, releaseFacts } from "../../scripts/release-facts.mjs";

const root = join(__dirname, "..", "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string; description: string; repository: { url: string } };

type Facts = { version: string; versions: [string, string][]; servers: [string, string][]; goModules: [string, string][]; pluginDownloadURL: string; goModule: string };

describe("the release's files agree", () => {
  const facts = releaseFacts(root) as Facts;

  test("every generated file states package.json's version, the download address and the Go module of its repository (else run npm run gen)", () => {
    expect(disagreements(facts)).toEqual([]);
    expect(facts.versions.length).toBeGreaterThanOrEqual(8);
    expect(facts.versions.every(([, v]) => v === pkg.version)).toBe(true);
    const release = releaseOf(pkg);
    expect(facts.pluginDownloadURL).toBe(release.pluginDownloadURL);
    expect(facts.goModule).toBe(release.goModule);
  });

  test("the plugin archives are named with that version, one per platform Pulumi downloads plugins for", () => {
    const names = (PLATFORMS as { os: string; arch: string }[]).map((p) => archiveName(pkg.version, p));
    expect(names).toEqual(["linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64", "windows-amd64"].map((p) => `pulumi-resource-sandbox-v${pkg.version}-${p}.tar.gz`));
  });

  test("the plugin's provider states that version", () => {
    expect(plugin.version).toBe(pkg.version);
  });

  test("the plugin answers GetPluginInfo with it (bin/pulumi-resource-sandbox, as the engine starts it)", async () => {
    const grpc = require("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
    const { ResourceProviderClient } = require("@pulumi/pulumi/proto/provider_grpc_pb");
    const { Empty } = require("google-protobuf/google/protobuf/empty_pb");
    const child = spawn(process.execPath, [join(root, "bin", "pulumi-resource-sandbox"), "127.0.0.1:1"], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d) => {
          out += d;
          const m = /^(\d+)\n/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        child.stderr.on("data", (d) => (out += d));
        child.on("exit", (code) => reject(new Error(`the plugin exited ${code} before printing its port:\n${out}`)));
      });
      const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
      const version = await new Promise<string>((resolve, reject) => client.getPluginInfo(new Empty(), (err: Error | null, r: { getVersion(): string }) => (err ? reject(err) : resolve(r.getVersion()))));
      client.close();
      expect(version).toBe(pkg.version);
    } finally {
      child.kill("SIGKILL");
    }
  }, 30_000);
});

describe("a disagreement is found", () => {
  /** A copy of the files the check reads, with `edit` applied to one of them. */
  function copyWith(file: string, edit: (text: string) => string): string {
    const dir = mkdtempSync(join(tmpdir(), "pulumi-sandbox-release-"));
    for (const f of ["package.json", "schema.json", "sdks/python/pyproject.toml", "sdks/python/pulumi_sandbox/pulumi-plugin.json", "sdks/go/sandbox/pulumi-plugin.json", "sdks/go/sandbox/internal/pulumiUtilities.go", "sdks/nodejs/package.json", "sdks/go/go.mod"]) {
      cpSync(join(root, f), join(dir, f), { recursive: true });
    }
    writeFileSync(join(dir, file), edit(readFileSync(join(dir, file), "utf8")));
    return dir;
  }

  const url = (releaseFacts(root) as Facts).pluginDownloadURL;
  const goModule = (releaseFacts(root) as Facts).goModule;
  test.each([
    ["package.json", (t: string) => t.replace(`"version": "${pkg.version}"`, `"version": "9.9.9"`), `schema.json: version "${pkg.version}", not "9.9.9"`],
    ["sdks/python/pyproject.toml", (t: string) => t.replace(`version = "${pkg.version}"`, `version = "9.9.9"`), `sdks/python/pyproject.toml: version "9.9.9", not "${pkg.version}"`],
    ["sdks/go/sandbox/pulumi-plugin.json", (t: string) => t.replace("github://", "https://"), `sdks/go/sandbox/pulumi-plugin.json server: download URL "${url.replace("github://", "https://")}", not "${url}"`],
    ["sdks/go/go.mod", (t: string) => t.replace(/^module \S+/m, "module example.com/other"), `sdks/go/go.mod: Go module "example.com/other", not "${goModule}"`],
  ] as const)("%s edited by hand", (file, edit, expected) => {
    const dir = copyWith(file, edit);
    try {
      expect(disagreements(releaseFacts(dir))).toContain(expected);
      expect(() => checkRelease(dir)).toThrow(/run `npm run gen`/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("package.json's repository is the one setting of where a release lives", () => {
  test("a GitHub repository gives the download address, the Go module and the schema's repository", () => {
    expect(releaseOf({ version: "1.0.0", description: "", repository: { type: "git", url: "git+https://github.com/Acme/pulumi-sandbox.git" } })).toEqual({
      repository: "https://github.com/Acme/pulumi-sandbox",
      pluginDownloadURL: "github://api.github.com/Acme/pulumi-sandbox",
      goModule: "github.com/acme/pulumi-sandbox/sdks/go",
    });
    expect(releaseOf({ version: "1.0.0", description: "", repository: "https://github.com/o/r" }).goModule).toBe("github.com/o/r/sdks/go");
  });

  test("anything else is refused, naming the field", () => {
    expect(() => releaseOf({ version: "1.0.0", description: "" })).toThrow(/"repository" must name the GitHub repository/);
    expect(() => releaseOf({ version: "1.0.0", description: "", repository: "https://gitlab.com/o/r" })).toThrow(/"repository"/);
  });
});
