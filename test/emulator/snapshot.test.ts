/**
 * emulator.snapshot() and createEmulator({ restore }): what one emulator made, another started from its
 * snapshot serves under the same IDs, read back through the HTTP API and the in-sandbox API, with
 * sandbox lifetimes counted from the restore and not from the snapshot.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Emulator, EmulatorSnapshot } from "../../emulator";
import { ProcessClient } from "../../sdk/in-sandbox/process";
import { client, DOCKERFILE, readyTemplate, requestBuild, startEmulator, waitFor, type Client } from "./platform-helpers";

let first: Emulator;
let c1: Client;
let snapshot: EmulatorSnapshot;
const made = { templateID: "", inFlight: "", volumeID: "", named: "", sandboxID: "", paused: "", token: "" };

beforeAll(async () => {
  first = await startEmulator({ buildDelayMs: 200 });
  c1 = client(first);
  made.templateID = await readyTemplate(c1, "snap-alias");
  await c1.patch(`/v2/templates/${made.templateID}`, { public: true });
  made.volumeID = (await c1.post("/volumes", { name: "snap-data" })).body.volumeID;
  made.named = (await c1.post("/volumes", { name: "snap-named" })).body.volumeID;
  const sb = await c1.post("/sandboxes", {
    templateID: "snap-alias", timeout: 3600, secure: true, metadata: { purpose: "snapshot" }, envVars: { SNAP_VAR: "from-the-snapshot" },
    volumeMounts: [{ name: "snap-data", path: "/home/user/data" }, { name: "snap-named", path: "/mnt/named" }],
  });
  expect(sb.status, JSON.stringify(sb.body)).toBe(201);
  made.sandboxID = sb.body.sandboxID;
  made.token = sb.body.envdAccessToken;
  made.paused = (await c1.post("/sandboxes", { templateID: "base", timeout: 600 })).body.sandboxID;
  expect((await c1.post(`/sandboxes/${made.paused}/pause`)).status).toBe(204);
  made.inFlight = (await requestBuild(c1, { dockerfile: DOCKERFILE })).templateID; // taken before it finishes
  // Through JSON, as a fixture file holds it.
  snapshot = JSON.parse(JSON.stringify(first.snapshot()));
});
afterAll(() => first?.close());

describe("snapshot", () => {
  test("holds every template but base, every volume and every sandbox, in JSON", () => {
    expect(snapshot).toMatchObject({ version: 1, takenAt: expect.any(String), teamID: expect.any(String), userID: expect.any(String) });
    expect(snapshot.templates.map((t) => t.templateID).sort()).toEqual([made.templateID, made.inFlight].sort());
    expect(snapshot.volumes.map((v) => v.name).sort()).toEqual(["snap-data", "snap-named"]);
    const sb = snapshot.sandboxes.find((s) => s.sandboxID === made.sandboxID);
    expect(sb).toMatchObject({ templateID: made.templateID, alias: "snap-alias", envVars: { SNAP_VAR: "from-the-snapshot" }, envdAccessToken: made.token });
    expect(sb?.volumeMounts).toEqual([{ name: "snap-data", path: "/home/user/data", volumeID: made.volumeID }, { name: "snap-named", path: "/mnt/named", volumeID: made.named }]);
    expect(JSON.stringify(snapshot)).not.toContain(first.dataDir); // host paths are the restoring emulator's business
  });
});

describe("restore", () => {
  let second: Emulator;
  let c2: Client;
  const hourMs = 3600_000;
  let restoredWithin: [number, number];

  beforeAll(async () => {
    // As if the snapshot had been taken an hour ago: the sandbox's times move an hour later, plus the
    // time between the snapshot and the restore.
    const anHourAgo = { ...snapshot, takenAt: new Date(Date.parse(snapshot.takenAt) - hourMs).toISOString() };
    const before = Date.now();
    second = await startEmulator({ buildDelayMs: 200, restore: anHourAgo, apiKey: first.apiKey, accessToken: first.accessToken });
    restoredWithin = [before, Date.now()];
    c2 = client(second);
  });
  afterAll(() => second?.close());

  test("templates come back with their ID, builds, alias and public flag", async () => {
    const [one, two] = [await c1.get(`/templates/${made.templateID}`), await c2.get(`/templates/${made.templateID}`)];
    expect(two.status).toBe(200);
    expect(two.body).toEqual(one.body);
    const listed = (await c2.get("/templates")).body.find((t: { templateID: string }) => t.templateID === made.templateID);
    expect(listed).toMatchObject({ public: true, aliases: ["snap-alias"], names: ["emulator/snap-alias"] });
  });

  test("a build in flight at the snapshot runs again to the end", async () => {
    const status = await waitFor("the restored build", async () => {
      const t = (await c2.get(`/templates/${made.inFlight}`)).body;
      return t.builds?.[0]?.status === "ready" ? t.builds[0].status : undefined;
    });
    expect(status).toBe("ready");
  });

  test("volumes come back with their ID and name, and an empty directory", async () => {
    const listed = (await c2.get("/volumes")).body;
    expect(listed).toEqual(expect.arrayContaining([{ volumeID: made.volumeID, name: "snap-data" }, { volumeID: made.named, name: "snap-named" }]));
    expect(existsSync(join(second.dataDir, "volumes", made.volumeID))).toBe(true);
  });

  test("a sandbox comes back with its fields, and endAt counted from the restore", async () => {
    const [one, two] = [(await c1.get(`/sandboxes/${made.sandboxID}`)).body, (await c2.get(`/sandboxes/${made.sandboxID}`)).body];
    const { startedAt, endAt, ...rest } = one;
    expect(two).toMatchObject({ ...rest, metadata: { purpose: "snapshot" }, envdAccessToken: made.token, state: "running" });
    const [earliest, latest] = restoredWithin.map((t) => t - Date.parse(snapshot.takenAt) + hourMs);
    for (const [was, is] of [[endAt, two.endAt], [startedAt, two.startedAt]]) {
      const shift = Date.parse(is) - Date.parse(was);
      expect(shift).toBeGreaterThanOrEqual(earliest!);
      expect(shift).toBeLessThanOrEqual(latest!);
    }
    expect((await c2.get(`/sandboxes/${made.paused}`)).body).toMatchObject({ state: "paused", templateID: "rki5dems9wqfm4r03t7g" });
  });

  test("the restored sandbox runs commands with its envVars, token and mounts", async () => {
    const pc = new ProcessClient({ sandboxID: made.sandboxID, envdAccessToken: made.token, options: { sandboxUrl: second.sandboxUrl } });
    expect((await pc.run("echo $SNAP_VAR")).stdoutTail).toBe("from-the-snapshot\n");
    // The mount is back: what the sandbox writes there lands in the volume's dir.
    await pc.run("echo restored > /mnt/named/back.txt".replace("/mnt", second.isolation.mode === "none" ? "$PWD/../../mnt" : "/mnt"));
    expect(readFileSync(join(second.dataDir, "volumes", made.named, "back.txt"), "utf8")).toBe("restored\n");
  });

  test("the same team and user: createdBy reads the same", async () => {
    expect(second.snapshot()).toMatchObject({ teamID: snapshot.teamID, userID: snapshot.userID });
  });

  test("a snapshot naming a dir outside the data dir is refused, naming the field", async () => {
    const sandbox = snapshot.sandboxes[0]!;
    const bad: [EmulatorSnapshot, string][] = [
      [{ ...snapshot, volumes: [{ ...snapshot.volumes[0]!, volumeID: "../../../etc" }] }, 'restore: volumes[0].volumeID: must be a UUID, got "../../../etc"'],
      [{ ...snapshot, sandboxes: [{ ...sandbox, sandboxID: "../escape" }] }, 'restore: sandboxes[0].sandboxID: must be [a-z0-9]+, got "../escape"'],
      [
        { ...snapshot, sandboxes: [{ ...sandbox, volumeMounts: [{ name: "n", path: "/mnt/../../../tmp", volumeID: snapshot.volumes[0]!.volumeID }] }] },
        'restore: sandboxes[0].volumeMounts[0].path: must be a clean absolute path, got "/mnt/../../../tmp"',
      ],
    ];
    for (const [restore, message] of bad) await expect(startEmulator({ restore })).rejects.toThrow(message);
  });

  test("a snapshot of another format is refused, naming the version", async () => {
    await expect(startEmulator({ restore: { ...snapshot, version: 2 } as unknown as EmulatorSnapshot })).rejects.toThrow(
      "restore: an emulator snapshot of version 1 was expected, got version 2",
    );
  });
});
