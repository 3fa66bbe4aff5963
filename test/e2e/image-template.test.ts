/**
 * A Template FROM an image on a registry, and Sandboxes of it under egress rules, through the real
 * engine (issue 49): the emulator pulls the image the test pushed to a registry on loopback
 * (test/fixtures/sandbox-image.ts); the Dockerfile's RUN steps run as root over its files, one adding
 * a user, one downloading a program from "the internet" (test/fixtures/internet.ts) into
 * /usr/local/bin; each Sandbox runs that program as that user, with envd's own variables, and reaches
 * what its rules allow and nothing else. An ENV edit rebuilds the same template without fetching a
 * layer; an egress edit is an in-place update that the running sandbox obeys at once.
 */
import { join } from "node:path";
import { Sandbox } from "e2b";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startInternet, type Internet, type InternetHost } from "../fixtures/internet";
import type { TestRegistry } from "../fixtures/oci-registry";
import { startSandboxImage, type SandboxImage } from "../fixtures/sandbox-image";
import { callsSince, lastSeq, ROOT, startStack, type E2eStack } from "./harness";

const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "image-template");
const GREET = '#!/bin/sh\necho "hi from $(whoami): $GREETING"\n';

const dockerfile = (image: string, a: InternetHost, greeting: string) =>
  [
    `FROM ${image}`,
    "RUN echo 'bob:x:1001:1001::/home/bob:/bin/sh' >> /etc/passwd && echo 'bob:x:1001:' >> /etc/group && mkdir -p /home/bob && chown 1001:1001 /home/bob",
    `RUN wget -q -O /usr/local/bin/greet ${a.url}/greet && chmod 755 /usr/local/bin/greet`,
    `ENV GREETING="${greeting}"`,
    "USER bob",
  ].join("\n");

/** What each Sandbox prints: its user, the program's line, its ID, its root's distribution, then what A and B answer. */
const provision = (a: InternetHost, b: InternetHost) =>
  `whoami; greet; echo "id=$E2B_SANDBOX_ID"; grep ^ID= /etc/os-release; for u in ${a.url} ${b.url}; do timeout 5 wget -q -O - $u/ 2>/dev/null || echo refused; done`;

describe("a template FROM an image on a registry, and sandboxes of it under egress rules", () => {
  let pushed: SandboxImage;
  let registry: TestRegistry;
  let internet: Internet;
  let a: InternetHost;
  let b: InternetHost;
  let s: E2eStack;

  beforeAll(async () => {
    pushed = await startSandboxImage();
    registry = pushed.registry;
    internet = await startInternet({ "/greet": GREET });
    [a, b] = internet.hosts;
    // The suite's emulators run on the host's dirs (vitest.config.mts); this one pulls.
    s = await startStack(FIXTURE, "e2e-image-template", { images: "registry" });
    await s.configure({ dockerfile: dockerfile(pushed.image, a, "first"), provision: provision(a, b), allowed: a.ip });
  }, 300_000);

  afterAll(async () => {
    await s?.close();
    await internet?.close();
    await pushed?.close();
  });

  test("up: the build pulls the image and downloads the program; each sandbox runs it as bob and reaches what its rules allow", async () => {
    const preview = await s.ok("preview");
    expect(preview.output).toMatch(/\+ 5 to create/);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/\+ 5 created/);
    const out = await s.outputs({ showSecrets: true });
    const ids = out.sandboxIDs as string[];
    const printed = (out.provisionResults as { exitCode: number; stdoutTail: string }[][]).map(([r]) => r);
    const head = (i: number) => `bob\nhi from bob: first\nid=${ids[i]}\nID=busybox\n`;
    expect(printed[0]).toMatchObject({ exitCode: 0, stdoutTail: `${head(0)}hello from ${a.ip}\nhello from ${b.ip}\n` });
    expect(printed[1]).toMatchObject({ exitCode: 0, stdoutTail: `${head(1)}hello from ${a.ip}\nrefused\n` });
    expect(printed[2]).toMatchObject({ exitCode: 0, stdoutTail: `${head(2)}refused\nrefused\n` });
    expect(a.requests.filter((p) => p === "/greet")).toHaveLength(1);
    expect(registry.requests().filter((r) => r.includes("/blobs/"))).toHaveLength(2); // the config and the one layer
  });

  test("an egress edit is an in-place update: the running sandbox then reaches B and not A", async () => {
    await s.ok("config", "set", "allowed", b.ip);
    const preview = await s.ok("preview");
    expect(preview.output).toMatch(/~ 1 to update/);
    const before = await s.outputs();
    await s.ok("up", "--yes", "--skip-preview");
    const id = (before.sandboxIDs as string[])[1]!;
    expect((await s.outputs()).sandboxIDs).toEqual(before.sandboxIDs);
    const sbx = await Sandbox.connect(id, { apiKey: s.emulator.apiKey, apiUrl: s.emulator.apiUrl, sandboxUrl: s.emulator.sandboxUrl });
    const probe = await sbx.commands.run(`for u in ${a.url} ${b.url}; do timeout 5 wget -q -O - $u/ 2>/dev/null || echo refused; done`);
    expect(probe.stdout).toBe(`refused\nhello from ${b.ip}\n`);
  });

  test("an ENV edit rebuilds the same template in place; no layer is fetched and the program is not downloaded again", async () => {
    const before = await s.outputs();
    const blobsBefore = registry.requests().filter((r) => r.includes("/blobs/")).length;
    await s.ok("config", "set", "dockerfile", dockerfile(pushed.image, a, "second"));
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
    expect(a.requests.filter((p) => p === "/greet")).toHaveLength(1); // the RUN steps before the ENV came from the layer cache
  });
});
