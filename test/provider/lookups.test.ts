/** Lookups against the emulator: what a program finds without managing it, and the errors it gets. */
import { describe, expect, test } from "vitest";
import { getTemplate, listSandboxes } from "../../provider/lookups";
import { emulatorForFile, rest } from "./harness";

/** A template of the emulator's team, built with the v1 call (Bearer access token). */
async function buildTemplate(alias: string): Promise<string> {
  const res = await fetch(`${emu().apiUrl}/templates`, {
    method: "POST",
    headers: { authorization: `Bearer ${emu().accessToken}`, "content-type": "application/json" },
    body: JSON.stringify({ dockerfile: "FROM e2bdev/base:latest\n", alias }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { templateID: string }).templateID;
}

const emu = emulatorForFile();
const options = () => ({ apiUrl: emu().apiUrl, apiKey: emu().apiKey });

describe("getTemplate", () => {
  test("finds a template of the team by alias or by ID", async () => {
    const templateID = await buildTemplate("looked-up");
    const byAlias = await getTemplate({ alias: "looked-up" }, options());
    expect(byAlias).toMatchObject({ templateID, aliases: ["looked-up"], public: false });
    expect(await getTemplate({ templateID }, options())).toEqual(byAlias);
  });

  test("names what it looked for when there is none", async () => {
    await expect(getTemplate({ alias: "no-such-template" }, options())).rejects.toThrow(
      'getTemplate: no template with alias "no-such-template" belongs to this API key\'s team',
    );
    await expect(getTemplate({}, options())).rejects.toThrow("getTemplate: give templateID or alias");
  });
});

describe("listSandboxes", () => {
  test("finds sandboxes by metadata, running and paused", async () => {
    const make = async (metadata: Record<string, string>) => ((await (await rest(emu(), "POST", "/sandboxes", { templateID: "base", timeout: 120, metadata })).json()) as { sandboxID: string }).sandboxID;
    const a = await make({ team: "data", env: "prod" });
    const b = await make({ team: "data", env: "dev" });
    await make({ team: "web" });
    expect((await rest(emu(), "POST", `/sandboxes/${b}/pause`)).status).toBe(204);
    const data = await listSandboxes({ metadata: { team: "data" } }, options());
    expect(data.map((s) => [s.sandboxID, s.state]).sort()).toEqual([[a, "running"], [b, "paused"]].sort());
    expect(await listSandboxes({ metadata: { team: "data" }, state: ["running"] }, options())).toMatchObject([{ sandboxID: a, metadata: { team: "data", env: "prod" } }]);
    expect(await listSandboxes({ metadata: { team: "nobody" } }, options())).toEqual([]);
    expect(await listSandboxes({}, options())).toHaveLength(3);
  });
});
