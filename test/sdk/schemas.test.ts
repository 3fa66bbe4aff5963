/**
 * Wire schemas: what real answers look like parses; a changed answer fails with a message that
 * names the operation and the field.
 */
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { thrown } from "./expect-error";
import { formatPath, parseWire } from "../../sdk/schemas/parse";
import { Sandbox, SandboxDetail } from "../../sdk/schemas/sandboxes";
import { Template, TemplateBuildAccepted, TemplateBuildInfo } from "../../sdk/schemas/templates";

const detail = {
  templateID: "t1", sandboxID: "i1", clientID: "c", startedAt: "2025-01-01T00:00:00Z", endAt: "2025-01-01T00:05:00Z",
  envdVersion: "0.2.0", cpuCount: 2, memoryMB: 512, diskSizeMB: 0, state: "running",
};

describe("parseWire messages", () => {
  test("missing field", () => {
    const { endAt: _, ...noEnd } = detail;
    const err = thrown(() => parseWire(SandboxDetail, noEnd, "GET /sandboxes/{id}"));
    expect(err.code).toBe("invalid_response");
    expect(err.message).toMatch(/^GET \/sandboxes\/\{id\}: response field `endAt`: expected string, got nothing \(the field is missing\)\./);
  });

  test("enum value outside the documented set", () => {
    const err = thrown(() => parseWire(SandboxDetail, { ...detail, state: "exploded" }, "GET /sandboxes/{id}"));
    expect(err.message).toMatch(/^GET \/sandboxes\/\{id\}: response field `state`: expected one of "running"\|"paused", got "exploded"\./);
  });

  test("nested path and a count of further problems", () => {
    const err = thrown(() => parseWire(z.array(SandboxDetail), [detail, { ...detail, volumeMounts: [{ name: 1 }] }], "GET /v2/sandboxes"));
    expect(err.message).toMatch(/^GET \/v2\/sandboxes: response field `\[1\]\.volumeMounts\[0\]\.name`: expected string, got number \(and 1 more problem\)\./);
  });

  test("the body itself of the wrong kind", () => {
    expect(thrown(() => parseWire(z.array(Template), { error: "x" }, "GET /templates")).message).toMatch(
      /^GET \/templates: response body: expected array, got object\./,
    );
  });

  test("formatPath quotes keys that are not identifiers", () => {
    expect(formatPath(["sandboxes", "i-1", "cpuCount"])).toBe('sandboxes["i-1"].cpuCount');
    expect(formatPath([0, "a"])).toBe("[0].a");
  });
});

describe("what real answers look like parses", () => {
  test("a non-secure create answer has null tokens and domain", () => {
    const s = Sandbox.parse({ templateID: "t", sandboxID: "i", clientID: "c", envdVersion: "0.2.0", envdAccessToken: null, trafficAccessToken: null, domain: null });
    expect(s.envdAccessToken).toBeNull();
  });

  test("a detail with lifecycle, network, volume mounts and a null allowInternetAccess", () => {
    const d = SandboxDetail.parse({
      ...detail, allowInternetAccess: null, domain: null, metadata: { app: "x" },
      network: { allowPublicTraffic: false, denyOut: ["0.0.0.0/0"] }, lifecycle: { autoResume: false, onTimeout: "pause" },
      volumeMounts: [{ name: "data", path: "/mnt/data" }],
    });
    expect(d.lifecycle?.onTimeout).toBe("pause");
    expect(d.network?.denyOut).toEqual(["0.0.0.0/0"]);
  });

  test("the v1 rebuild's 202 body, zero-valued beyond its five fields", () => {
    const accepted = TemplateBuildAccepted.parse({
      templateID: "t1", buildID: "b2", aliases: ["web"], names: ["team/web"], public: false,
      cpuCount: 0, memoryMB: 0, diskSizeMB: 0, createdAt: "0001-01-01T00:00:00Z", updatedAt: "0001-01-01T00:00:00Z",
      createdBy: null, lastSpawnedAt: null, spawnCount: 0, buildCount: 0, envdVersion: "", buildStatus: "",
    });
    expect(accepted).toEqual({ templateID: "t1", buildID: "b2", aliases: ["web"], names: ["team/web"], public: false });
  });

  test("a 202 body with only IDs gets empty lists and public false", () => {
    expect(TemplateBuildAccepted.parse({ templateID: "t1", buildID: "b2", aliases: null })).toEqual({ templateID: "t1", buildID: "b2", aliases: [], names: [], public: false });
  });

  test("build status `uploaded` reads as ready; an unknown status is refused", () => {
    const base = { templateID: "t", buildID: "b", logs: [], logEntries: [] };
    expect(TemplateBuildInfo.parse({ ...base, status: "uploaded" }).status).toBe("ready");
    expect(TemplateBuildInfo.safeParse({ ...base, status: "paused" }).success).toBe(false);
  });
});
