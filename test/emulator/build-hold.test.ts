/**
 * `holdBuilds`: builds run their steps, then stay `building` until `releaseBuilds()`; a build refused
 * at its start still ends at once, after the release no build is held, and `holdBuilds()` holds them
 * again. The e2e tests of a killed `up` rely on it to find a build still running, however slow the machine.
 */
import { describe, expect, test } from "vitest";
import { buildFinished, DOCKERFILE, requestBuild, useEmulator, waitFor } from "./platform-helpers";

const held = useEmulator({ holdBuilds: true });

const status = async (templateID: string, buildID: string) => (await held.c.get(`/templates/${templateID}/builds/${buildID}/status`)).body;

describe("holdBuilds", () => {
  test("a build runs its steps and stays building until released; a refused one ends; after the release none waits", async () => {
    const { templateID, buildID } = await requestBuild(held.c, { dockerfile: DOCKERFILE });
    // Its log's last line is written: every step has run, only `ready` waits.
    await waitFor("the build's last log line", async () => ((await status(templateID, buildID)).logEntries.some((e: { message: string }) => /^Build finished/.test(e.message)) ? true : undefined));
    // Many times the build's 60 ms delay (and the 1 s lag before ready) later, it is still building.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await status(templateID, buildID)).status).toBe("building");

    const refused = await requestBuild(held.c, { dockerfile: "FROM alpine AS builder\nFROM alpine\nCOPY --from=builder /out /out\n" });
    expect((await buildFinished(held.c, refused.templateID, refused.buildID)).status).toBe("error");

    held.emu.releaseBuilds();
    expect((await buildFinished(held.c, templateID, buildID)).status).toBe("ready");
    const later = await requestBuild(held.c, { dockerfile: DOCKERFILE }, templateID);
    expect((await buildFinished(held.c, templateID, later.buildID)).status).toBe("ready");
  });

  test("holdBuilds() holds builds again, until the next release", async () => {
    held.emu.holdBuilds();
    const { templateID, buildID } = await requestBuild(held.c, { dockerfile: DOCKERFILE });
    await waitFor("the build's last log line", async () => ((await status(templateID, buildID)).logEntries.some((e: { message: string }) => /^Build finished/.test(e.message)) ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await status(templateID, buildID)).status).toBe("building");
    held.emu.releaseBuilds();
    expect((await buildFinished(held.c, templateID, buildID)).status).toBe("ready");
  });
});
