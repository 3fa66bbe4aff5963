/** Lookups against the emulator: what a program finds without managing it, and the errors it gets. */
import { describe, expect, test } from "vitest";
import {
  getSandboxLogs, getSandboxMetrics, getTemplate, getTemplateBuildLogs, listDefaultTemplates, listSandboxes, listSnapshots, listTemplateBuilds, listTemplates,
  listTemplateTagGroups, listTemplateTags, listSecrets, listVolumes,
} from "../../provider/lookups";
import { QUERIES } from "../../provider/lookup-queries";
import { PlatformClient } from "../../sdk/platform/client";
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

async function newSandbox(metadata: Record<string, string>): Promise<string> {
  const res = await rest(emu(), "POST", "/sandboxes", { templateID: "base", timeout: 120, metadata });
  expect(res.status).toBe(201);
  return ((await res.json()) as { sandboxID: string }).sandboxID;
}

/** A query run on a client of its own, with a page size small enough to make the service answer in several pages. */
async function paged<T>(use: (client: PlatformClient) => Promise<T>): Promise<{ result: T; calls: string[] }> {
  const calls: string[] = [];
  const stop = emu().onRequest((line) => calls.push(line.split(" ").slice(0, 2).join(" ")));
  const client = new PlatformClient(options());
  try {
    return { result: await use(client), calls };
  } finally {
    stop();
    await client.close();
  }
}

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
    expect((await listSandboxes({}, options())).filter((s) => s.metadata.team)).toHaveLength(3);
  });
});

describe("listTemplates", () => {
  test("lists the team's templates, not the built-in one", async () => {
    const templateID = await buildTemplate("listed-template");
    const all = await listTemplates({}, options());
    expect(all.map((t) => t.templateID)).toContain(templateID);
    expect(all.find((t) => t.templateID === templateID)).toEqual(await getTemplate({ templateID }, options()));
    expect(all.some((t) => t.aliases.includes("base"))).toBe(false);
  });
});

describe("a template's tags, builds and build logs", () => {
  test("each by alias or ID, every page of builds and of a build's log", async () => {
    const templateID = await buildTemplate("with-builds");
    const client = new PlatformClient({ ...options(), accessToken: emu().accessToken });
    try {
      await client.templates.waitForBuild(templateID, (await getTemplate({ templateID }, options())).buildID);
      const second = await client.templates.rebuild(templateID, { dockerfile: "FROM e2bdev/base:latest\nRUN echo again\n" });
      await client.templates.waitForBuild(templateID, second.buildID);
      await client.builds.assignTags(`with-builds:default`, ["stable"]);
      await client.builds.assignTags(`with-builds:stable`, ["canary"]);
    } finally {
      await client.close();
    }
    const builds = await listTemplateBuilds({ alias: "with-builds" }, options());
    expect(builds).toHaveLength(2);
    expect(builds.map((b) => b.status)).toEqual(["ready", "ready"]);
    const { result, calls } = await paged((c) => QUERIES.listTemplateBuilds(c, { templateID }, 1));
    expect(result.builds).toEqual(builds);
    expect(calls.filter((c) => c.startsWith(`GET /templates/${templateID}`))).toHaveLength(2);

    const tags = await listTemplateTags({ templateID }, options());
    // The v1 calls tag no build; `stable` was pointed at the newest (what `name:default` resolves to), `canary` at stable's.
    expect(tags.map((t) => [t.tag, t.buildID]).sort()).toEqual([["canary", builds[0]!.buildID], ["stable", builds[0]!.buildID]]);

    // Each tag with the builds it was pointed to, every page of tags.
    const groups = await listTemplateTagGroups({ alias: "with-builds" }, options());
    expect(groups.map((g) => [g.tag, g.assignments.map((a) => a.buildID), g.hasMore]).sort()).toEqual([
      ["canary", [builds[0]!.buildID], false], ["stable", [builds[0]!.buildID], false],
    ]);
    const groupPages = await paged((c) => QUERIES.listTemplateTagGroups(c, { templateID }, 1));
    expect(groupPages.result.groups).toEqual(groups);
    expect(groupPages.calls.filter((c) => c.startsWith(`GET /templates/${templateID}/tags/groups`))).toHaveLength(2);
    expect((await listTemplateTagGroups({ alias: "with-builds", search: "can" }, options())).map((g) => g.tag)).toEqual(["canary"]);

    const log = await getTemplateBuildLogs({ alias: "with-builds", buildID: builds[0]!.buildID }, options());
    expect(log.length).toBeGreaterThan(1);
    const byPages = await paged((c) => QUERIES.getTemplateBuildLogs(c, { templateID, buildID: builds[0]!.buildID }, 1));
    expect(byPages.result.entries).toEqual(log);
    // One entry a page, then the empty page that ends it.
    expect(byPages.calls.filter((c) => c.includes("/status"))).toHaveLength(log.length + 1);
    await expect(listTemplateTags({ alias: "nothing-here" }, options())).rejects.toThrow('listTemplateTags: no template with alias "nothing-here" belongs to this API key\'s team');
  });
});

describe("listDefaultTemplates", () => {
  test("lists the service's default templates, which no team owns: the emulator's base", async () => {
    const defaults = await listDefaultTemplates({}, options());
    expect(defaults.map((t) => t.aliases)).toEqual([["base"]]);
    expect((await listTemplates({}, options())).map((t) => t.templateID)).not.toContain(defaults[0]!.templateID);
  });
});

describe("listSandboxes paging", () => {
  test("follows every page of the service's list", async () => {
    const ids = [await newSandbox({ paging: "yes" }), await newSandbox({ paging: "yes" }), await newSandbox({ paging: "yes" })];
    const { result, calls } = await paged((client) => QUERIES.listSandboxes(client, { metadata: { paging: "yes" } }, 2));
    expect(result.sandboxes.map((s) => s.sandboxID).sort()).toEqual([...ids].sort());
    expect(calls.filter((c) => c.startsWith("GET /v2/sandboxes"))).toHaveLength(2);
  });
});

describe("getSandboxLogs", () => {
  test("gives a sandbox's log entries, and fails for one the team does not have", async () => {
    const id = await newSandbox({ logs: "yes" });
    const entries = await getSandboxLogs({ sandboxID: id }, options());
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries) expect(e).toEqual({ timestamp: expect.any(String), level: expect.stringMatching(/^(debug|info|warn|error)$/), message: expect.any(String), fields: expect.any(Object) });
    expect(await getSandboxLogs({ sandboxID: id, limit: 1 }, options())).toEqual(entries.slice(0, 1));
    await expect(getSandboxLogs({ sandboxID: "inofake0000000000000" }, options())).rejects.toThrow(/inofake0000000000000/);
  });

  test("names the lookup and the field of a bad argument, before any call", async () => {
    await expect(getSandboxLogs({ sandboxID: "" }, options())).rejects.toThrow("getSandboxLogs: sandboxID: must not be empty");
    await expect(listVolumes({ volume: "x" } as never, options())).rejects.toThrow(/^listVolumes: arguments: .*"volume"/);
  });
});

describe("getSandboxMetrics", () => {
  test("gives the readings of a running sandbox over a range, none once it is paused", async () => {
    const id = await newSandbox({ metrics: "yes" });
    const now = Math.floor(Date.now() / 1000);
    const readings = await getSandboxMetrics({ sandboxID: id, start: now - 60, end: now + 60 }, options());
    expect(readings.length).toBeGreaterThan(0);
    expect(readings[0]).toEqual({ timestampUnix: expect.any(Number), cpuCount: expect.any(Number), cpuUsedPct: expect.any(Number), memUsed: expect.any(Number), memTotal: expect.any(Number), memCache: expect.any(Number), diskUsed: expect.any(Number), diskTotal: expect.any(Number) });
    await expect(getSandboxMetrics({ sandboxID: id, start: now, end: now - 60 }, options())).rejects.toThrow("Invalid time range for metrics");
    expect((await rest(emu(), "POST", `/sandboxes/${id}/pause`)).status).toBe(204);
    expect(await getSandboxMetrics({ sandboxID: id }, options())).toEqual([]);
  });
});

describe("listSnapshots", () => {
  test("lists every page of the team's snapshots, by sandbox and by name", async () => {
    const from = await newSandbox({ snap: "yes" });
    const other = await newSandbox({ snap: "other" });
    const take = async (id: string, name: string) => {
      const res = await rest(emu(), "POST", `/sandboxes/${id}/snapshots`, { name });
      expect(res.status).toBe(201);
      return ((await res.json()) as { snapshotID: string }).snapshotID;
    };
    const mine = [await take(from, "snap-one"), await take(from, "snap-two"), await take(from, "snap-three")];
    const theirs = await take(other, "snap-other");
    const { result, calls } = await paged((client) => QUERIES.listSnapshots(client, { sandboxID: from }, 2));
    expect(result.snapshots.map((s) => s.snapshotID).sort()).toEqual([...mine].sort());
    expect(calls.filter((c) => c.startsWith("GET /snapshots"))).toHaveLength(2);
    expect((await listSnapshots({}, options())).map((s) => s.snapshotID).sort()).toEqual([...mine, theirs].sort());
    expect(await listSnapshots({ name: "snap-two" }, options())).toEqual([{ snapshotID: mine[1], names: [expect.stringMatching(/snap-two$/)] }]);
    expect(await listSnapshots({ name: "no-such-snapshot" }, options())).toEqual([]);
  });
});

describe("listVolumes", () => {
  test("lists the team's volumes", async () => {
    const made = [];
    for (const name of ["vol-a", "vol-b"]) {
      const res = await rest(emu(), "POST", "/volumes", { name });
      expect(res.status).toBe(201);
      made.push({ volumeID: ((await res.json()) as { volumeID: string }).volumeID, name });
    }
    expect((await listVolumes({}, options())).sort((a, b) => a.name.localeCompare(b.name))).toEqual(made);
  });
});

describe("listSecrets", () => {
  test("lists every page of the team's secrets by ID and name, and no value", async () => {
    const made = [];
    for (const name of ["Token-A", "token-b", "token-c"]) {
      const res = await rest(emu(), "POST", "/secrets", { name, value: `value-of-${name}` });
      expect(res.status).toBe(201);
      made.push({ secretID: ((await res.json()) as { secretID: string }).secretID, name: name.toLowerCase() });
    }
    const { result, calls } = await paged((client) => QUERIES.listSecrets(client, {}, 2));
    expect(calls.filter((c) => c.startsWith("GET /secrets"))).toHaveLength(2);
    const byName = (list: { name: string }[]) => [...list].sort((a, b) => a.name.localeCompare(b.name));
    expect(byName(result.secrets)).toEqual(made);
    const listed = await listSecrets({}, options());
    expect(byName(listed)).toEqual(made);
    expect(JSON.stringify(listed)).not.toContain("value-of-");
    await expect(listSecrets({ name: "x" } as never, options())).rejects.toThrow(/^listSecrets: arguments: .*"name"/);
  });
});
