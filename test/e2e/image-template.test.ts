/**
 * A Template FROM an image on a registry, through the real engine (issue 49): the emulator pulls the
 * image the test pushed to a registry on loopback (test/fixtures/oci-registry.ts), runs the
 * Dockerfile's RUN steps as root over its files (one adds a user, one installs a program into
 * /usr/local/bin), and a Sandbox of it runs that program as that user, on the image's files, with
 * envd's own variables. An edit rebuilds the same template without fetching a layer again.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { TestRegistry } from "../fixtures/oci-registry";
import { startSandboxImage, type SandboxImage } from "../fixtures/sandbox-image";
import { callsSince, lastSeq, ROOT, startStack, type E2eStack } from "./harness";

const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "image-template");
const PROVISION = "whoami; greet; echo \"id=$E2B_SANDBOX_ID\"; grep ^ID= /etc/os-release";

const dockerfile = (image: string, greeting: string) =>
  [
    `FROM ${image}`,
    "RUN echo 'bob:x:1001:1001::/home/bob:/bin/sh' >> /etc/passwd && echo 'bob:x:1001:' >> /etc/group && mkdir -p /home/bob && chown 1001:1001 /home/bob",
    "RUN printf '#!/bin/sh\\necho \"hi from $(whoami): $GREETING\"\\n' > /usr/local/bin/greet && chmod 755 /usr/local/bin/greet",
    `ENV GREETING="${greeting}"`,
    "USER bob",
  ].join("\n");

describe("a template FROM an image on a registry", () => {
  let pushed: SandboxImage;
  let registry: TestRegistry;
  let image = "";
  let s: E2eStack;

  beforeAll(async () => {
    pushed = await startSandboxImage();
    ({ registry, image } = pushed);
    // The suite's emulators run on the host's dirs (vitest.config.mts); this one pulls.
    s = await startStack(FIXTURE, "e2e-image-template", { images: "registry" });
    await s.configure({ dockerfile: dockerfile(image, "first"), provision: PROVISION });
  }, 300_000);

  afterAll(async () => {
    await s?.close();
    await pushed?.close();
  });

  test("up pulls the image, builds over it, and the sandbox runs the installed program as the user a RUN step made", async () => {
    const preview = await s.ok("preview");
    expect(preview.output).toMatch(/\+ 3 to create/);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/\+ 3 created/);
    const out = await s.outputs({ showSecrets: true });
    const [result] = out.provisionResults as { exitCode: number; stdoutTail: string }[];
    expect(result).toMatchObject({ exitCode: 0, stdoutTail: `bob\nhi from bob: first\nid=${String(out.sandboxID)}\nID=busybox\n` });
    expect(registry.requests().filter((r) => r.includes("/blobs/"))).toHaveLength(2); // the config and the one layer
  });

  test("an ENV edit rebuilds the same template in place; the image is not fetched again", async () => {
    const before = await s.outputs();
    const blobsBefore = registry.requests().filter((r) => r.includes("/blobs/")).length;
    await s.ok("config", "set", "dockerfile", dockerfile(image, "second"));
    const preview = await s.ok("preview");
    expect(preview.output).toMatch(/~ 1 to update/);
    const since = lastSeq(s.emulator);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/~ 1 updated/);
    const after = await s.outputs();
    expect(after.templateID).toBe(before.templateID);
    expect(after.buildID).not.toBe(before.buildID);
    expect(callsSince(s.emulator, since).filter((c) => c.startsWith("POST"))).toEqual(["POST /v3/templates", `POST /v2/templates/${String(after.templateID)}/builds/${String(after.buildID)}`]);
    expect(registry.requests().filter((r) => r.includes("/blobs/")).length).toBe(blobsBefore);
  });
});
