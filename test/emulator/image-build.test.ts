/**
 * A template's FROM image as the emulator builds and runs it (emulator/store/image-roots.ts): pulled
 * from a real registry on loopback (test/fixtures/oci-registry.ts), its RUN steps run as root over
 * the image's files, what they leave in every sandbox of it, the image's environment the template's,
 * one unpack for two templates of it, and the service's words for an image that is not there.
 */
import { Sandbox } from "e2b";
import { afterAll, beforeAll, describe, expect, it, test } from "vitest";
import { createEmulator } from "../../emulator";
import { parseArgs } from "../../emulator/cli-args";
import { imageSettings, IMAGES_ENV } from "../../emulator/image-settings";
import { SANDBOX_IMAGE_CONFIG, type LayerBlob } from "../fixtures/oci-image";
import type { TestRegistry } from "../fixtures/oci-registry";
import { startSandboxImage, type SandboxImage } from "../fixtures/sandbox-image";
import { client, useEmulator, waitFor, type Client } from "./platform-helpers";

let pushed: SandboxImage;
let registry: TestRegistry;
let image = "";
let layers: LayerBlob[] = [];
beforeAll(async () => {
  pushed = await startSandboxImage();
  ({ registry, image, layers } = pushed);
});
afterAll(() => pushed?.close());

const env = useEmulator({ images: "registry", buildDelayMs: 50 });
const isolated = () => env.emu.isolation.mode === "namespaces";

/** Requests and starts a v2 build; resolves with its end. */
async function build(c: Client, name: string, body: Record<string, unknown>): Promise<{ templateID: string; status: string; logs: string[]; reason?: string }> {
  const requested = await c.post("/v3/templates", { name, cpuCount: 2, memoryMB: 1024 });
  expect(requested.status).toBe(202);
  const { templateID, buildID } = requested.body as { templateID: string; buildID: string };
  expect((await c.post(`/v2/templates/${templateID}/builds/${buildID}`, body)).status).toBe(202);
  const done = await waitFor("the build's end", async () => {
    const res = await c.get(`/templates/${templateID}/builds/${buildID}/status?logsOffset=0&level=debug`);
    return ["ready", "error"].includes(res.body.status) ? res : undefined;
  }, 60_000);
  const logs = (done.body.logEntries as { message: string }[]).map((e) => e.message);
  return { templateID, status: done.body.status, logs, reason: (done.body.reason as { message?: string } | undefined)?.message };
}

const STEPS = [
  { type: "RUN", args: ["echo 'bob:x:1001:1001::/home/bob:/bin/sh' >> /etc/passwd && echo 'bob:x:1001:' >> /etc/group && mkdir -p /home/bob && chown 1001:1001 /home/bob", "root"] },
  { type: "RUN", args: ["printf '#!/bin/sh\\necho \"hi from $(whoami), $GREETING\"\\n' > /usr/local/bin/greet && chmod 755 /usr/local/bin/greet", "root"] },
  { type: "ENV", args: ["GREETING", "set by ENV"] },
];

describe("a template FROM an image on a registry", () => {
  it("runs its RUN steps as root over the image's files, and every sandbox of it has what they left", async () => {
    const built = await build(env.c, "from-busybox", { fromImage: image, steps: STEPS });
    expect(built.reason).toBeUndefined();
    expect(built.status).toBe("ready");
    expect(built.logs).toContain(`Pulling image ${image}`);
    expect(built.logs.some((l) => l.startsWith(`Pulled image ${image} (sha256:`))).toBe(true);
    if (!isolated()) return;
    const sbx = await Sandbox.create(built.templateID, { apiKey: env.emu.apiKey, apiUrl: env.emu.apiUrl, sandboxUrl: env.emu.sandboxUrl });
    try {
      // The image's own files, not the host's: busybox's os-release, and the user the builder adds.
      expect((await sbx.commands.run("cat /etc/os-release")).stdout).toContain("ID=busybox");
      expect(await sbx.files.read("/etc/os-release")).toContain("ID=busybox");
      expect((await sbx.commands.run("greet")).stdout.trim()).toBe("hi from user, set by ENV");
      expect((await sbx.commands.run("echo $IMAGE_GREETING")).stdout.trim()).toBe("from the image");
      expect((await sbx.commands.run("id -u bob && stat -c %U /home/bob")).stdout.split("\n").slice(0, 2)).toEqual(["1001", "bob"]);
      // A sandbox writes over the image: its change is its own, the image's dir stays as pulled.
      await sbx.commands.run("echo changed > /etc/os-release", { user: "root" });
      expect(await sbx.files.read("/etc/os-release")).toBe("changed\n");
      await sbx.files.write("/usr/local/bin/note", "from the file API");
      expect((await sbx.commands.run("cat /usr/local/bin/note")).stdout).toBe("from the file API");
    } finally {
      await sbx.kill();
    }
    const other = await Sandbox.create(built.templateID, { apiKey: env.emu.apiKey, apiUrl: env.emu.apiUrl, sandboxUrl: env.emu.sandboxUrl });
    try {
      expect((await other.commands.run("cat /etc/os-release")).stdout).toContain("ID=busybox");
    } finally {
      await other.kill();
    }
  });

  it("a user a RUN step made is one envd knows: a later step, the template's USER and a call may name it", async () => {
    const steps = [...STEPS, { type: "RUN", args: ["whoami > /home/bob/made-by && echo $HOME >> /home/bob/made-by", "bob"] }, { type: "USER", args: ["bob"] }];
    const built = await build(env.c, "as-bob", { fromImage: image, steps });
    expect(built.reason).toBeUndefined();
    if (!isolated()) return;
    const sbx = await Sandbox.create(built.templateID, { apiKey: env.emu.apiKey, apiUrl: env.emu.apiUrl, sandboxUrl: env.emu.sandboxUrl });
    try {
      expect(await sbx.files.read("/home/bob/made-by")).toBe("bob\n/home/bob\n");
      // The template's USER is the default user of a call (its WORKDIR, /home/user unless set, the cwd).
      expect((await sbx.commands.run("whoami; echo $HOME; greet")).stdout).toBe("bob\n/home/bob\nhi from bob, set by ENV\n");
      expect((await sbx.commands.run("whoami", { user: "root" })).stdout).toBe("root\n");
      await sbx.files.write("/home/bob/by-api", "x", { user: "bob" });
      expect((await sbx.commands.run("stat -c %U /home/bob/by-api")).stdout).toBe("bob\n");
      // A user a command adds is one the next call may name.
      await sbx.commands.run("echo 'eve:x:1002:1002::/tmp:/bin/sh' >> /etc/passwd", { user: "root" });
      expect((await sbx.commands.run("whoami; echo $HOME", { user: "eve" })).stdout).toBe("eve\n/tmp\n");
      await expect(sbx.commands.run("true", { user: "mallory" })).rejects.toThrow(/invalid username: 'mallory'/);
    } finally {
      await sbx.kill();
    }
  });

  it("a USER step makes its user when the image lacks it (useradd as root), and fails as the builder words it when that fails", async () => {
    const built = await build(env.c, "user-step", { fromImage: image, steps: [{ type: "USER", args: ["carol"] }, { type: "RUN", args: ["whoami > ~/me"] }] });
    expect(built.reason).toBeUndefined();
    if (!isolated()) return;
    const sbx = await Sandbox.create(built.templateID, { apiKey: env.emu.apiKey, apiUrl: env.emu.apiUrl, sandboxUrl: env.emu.sandboxUrl });
    try {
      expect((await sbx.commands.run("cat ~/me; whoami; echo $HOME")).stdout).toBe("carol\ncarol\n/home/carol\n");
    } finally {
      await sbx.kill();
    }
    const bad = await build(env.c, "user-step-bad", { fromImage: image, steps: [{ type: "USER", args: ["Bad!"] }] });
    expect(bad.reason).toBe("failed to create user: failed to run command 'useradd --create-home --shell /bin/bash Bad!': exit status 3");
    expect(bad.logs).toContain("[builder 1/1] [stderr]: useradd: invalid user name 'Bad!'");
  });

  it("what a RUN step removes of the image stays removed: in the next step, in every sandbox, and what a sandbox removes in its fork", async () => {
    const steps = [{ type: "RUN", args: ["rm /etc/os-release && rm -rf /bin/vi", "root"] }, { type: "RUN", args: ["test ! -e /etc/os-release && test ! -e /bin/vi", "root"] }];
    const built = await build(env.c, "removals", { fromImage: image, steps });
    expect(built.reason).toBeUndefined();
    if (!isolated()) return;
    const sbx = await Sandbox.create(built.templateID, { apiKey: env.emu.apiKey, apiUrl: env.emu.apiUrl, sandboxUrl: env.emu.sandboxUrl });
    try {
      expect((await sbx.commands.run("ls /etc/os-release /bin/vi 2>&1; ls /bin/ls")).stdout).toContain("/bin/ls");
      expect((await sbx.commands.run("test -e /etc/os-release || test -e /bin/vi || echo both gone")).stdout).toBe("both gone\n");
      await expect(sbx.files.read("/etc/os-release")).rejects.toThrow(/does not exist|not found/i);
      await sbx.commands.run("rm /bin/ls", { user: "root" });
      const forked = await env.c.post(`/sandboxes/${sbx.sandboxId}/fork`, { timeout: 60 });
      const fork = await Sandbox.connect(forked.body[0].sandbox.sandboxID as string, { apiKey: env.emu.apiKey, apiUrl: env.emu.apiUrl, sandboxUrl: env.emu.sandboxUrl });
      expect((await fork.commands.run("test -e /bin/ls || echo gone in the fork")).stdout).toBe("gone in the fork\n");
      await fork.kill();
    } finally {
      await sbx.kill();
    }
  });

  it("a second template of the same image fetches no layer: the image is unpacked once", async () => {
    const before = registry.requests().length;
    const built = await build(env.c, "from-busybox-again", { fromImage: image, steps: [{ type: "RUN", args: ["true"] }] });
    expect(built.status).toBe("ready");
    expect(built.logs.some((l) => l.includes("is already unpacked: no layer pulled"))).toBe(true);
    expect(registry.requests().slice(before).filter((r) => r.includes("/blobs/"))).toEqual([]);
  });

  it("an image the registry does not have fails the build in the service's words, the emulator's detail logged", async () => {
    const tag = await build(env.c, "no-such-tag", { fromImage: `${registry.host}/sandbox-base:nope` });
    expect(tag.status).toBe("error");
    expect(tag.reason).toBe(`image '${registry.host}/sandbox-base:nope' not found: the image or tag does not exist in the registry`);
    expect(tag.logs).toContain(`image '${registry.host}/sandbox-base:nope' not found: the registry ${registry.host} has no tag 'nope' in 'sandbox-base'`);
    const unreachable = await build(env.c, "unreachable", { fromImage: "127.0.0.1:9/absent:1" });
    expect(unreachable.reason).toBe("failed to pull image '127.0.0.1:9/absent:1': unable to retrieve image from registry");
    expect(unreachable.logs.some((l) => l.startsWith("image '127.0.0.1:9/absent:1': cannot reach 127.0.0.1:9"))).toBe(true);
  });
});

describe("through a registry mirror", () => {
  it("Docker Hub's `ubuntu:22.04` comes from the mirror, and infra's ENV_variable_recursive passes on it", async () => {
    // The test image stands in for Docker Hub's ubuntu under the repository path a mirror of it has.
    await registry.push("library/ubuntu", "22.04", layers, SANDBOX_IMAGE_CONFIG);
    const emu = await createEmulator({ images: "registry", registryMirrors: { "docker.io": registry.host }, buildDelayMs: 50 });
    try {
      // build_template_test.go, TestTemplateBuildENV, "ENV variable recursive", as the suite sends it.
      const steps = [{ type: "ENV", force: true, args: ["PATH", "${PATH}:/my/path"] }, { type: "RUN", args: ['[[ "$PATH" == *:/my/path* ]] || exit 1'] }];
      const built = await build(client(emu), "test-ubuntu-env-recursive", { force: true, fromImage: "ubuntu:22.04", steps });
      expect(built.reason, built.logs.join("\n")).toBeUndefined();
      expect(built.logs.some((l) => l.startsWith("Pulled image ubuntu:22.04 (sha256:"))).toBe(true);
      expect(registry.requests()).toContain("GET /v2/library/ubuntu/manifests/22.04");
    } finally {
      await emu.close();
    }
  });
});

describe("where the emulator is told to fall back to the host's dirs", () => {
  it("registry-or-host: a pull that fails leaves the build on the host's dirs, and its log says so", async () => {
    const emu = await createEmulator({ images: "registry-or-host", buildDelayMs: 50 });
    try {
      const built = await build(client(emu), "offline", { fromImage: "127.0.0.1:9/absent:1" });
      expect(built.status).toBe("ready");
      expect(built.logs.some((l) => l.includes("on the host's system dirs") && l.includes("the pull failed (images: registry-or-host)"))).toBe(true);
    } finally {
      await emu.close();
    }
  });
});

describe("the images setting", () => {
  test("flags: --images, repeated --registry-mirror and --insecure-registry; bad values refused by name", () => {
    expect(parseArgs(["--images", "registry", "--registry-mirror", "docker.io=127.0.0.1:5000", "--registry-mirror=ghcr.io=mirror.lan", "--insecure-registry", "mirror.lan"])).toEqual({
      kind: "run",
      options: { images: "registry", registryMirrors: { "docker.io": "127.0.0.1:5000", "ghcr.io": "mirror.lan" }, insecureRegistries: ["mirror.lan"] },
    });
    expect(parseArgs(["--images", "cache"])).toEqual({ kind: "error", message: "option '--images' needs registry, registry-or-host or host, got 'cache'" });
    expect(parseArgs(["--registry-mirror", "docker.io"])).toEqual({ kind: "error", message: "option '--registry-mirror' needs REGISTRY=MIRROR (docker.io=127.0.0.1:5000), got 'docker.io'" });
  });

  test("the option wins over SANDBOX_EMULATOR_IMAGES, which wins over the default; a bad value names its source", () => {
    const saved = process.env[IMAGES_ENV];
    try {
      process.env[IMAGES_ENV] = "registry-or-host";
      expect(imageSettings({}).mode).toBe("registry-or-host");
      expect(imageSettings({ images: "host" }).mode).toBe("host");
      delete process.env[IMAGES_ENV];
      expect(imageSettings({}).mode).toBe("registry");
      process.env[IMAGES_ENV] = "offline";
      expect(() => imageSettings({})).toThrow("SANDBOX_EMULATOR_IMAGES must be one of registry, registry-or-host, host, got 'offline'");
    } finally {
      if (saved === undefined) delete process.env[IMAGES_ENV];
      else process.env[IMAGES_ENV] = saved;
    }
  });
});
