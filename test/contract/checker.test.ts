/**
 * The contract check can fail: known-bad answers, fed to the checker directly and through a real
 * emulator's exchange files, come back as violations naming the operation, status and JSON path.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createEmulator } from "../../emulator";
import { exchangeObserver, EXCHANGES_ENV, type Exchange } from "../../emulator/exchanges";
import { ContractChecker, formatViolation, sourceLabel } from "./checker";
import { checkExchangeDir, ENVD_HTTP_CONTRACT, loadContract, NEWEST_CONTRACTS, VOLUME_CONTENT_CONTRACT } from "./exchanges";

const checker = new ContractChecker(loadContract());
const [npmNewest, pypiNewest] = NEWEST_CONTRACTS.map((path) => new ContractChecker(loadContract(path))) as [ContractChecker, ContractChecker];
const SANDBOX = { templateID: "t", sandboxID: "i1", clientID: "c", envdVersion: "0.6.4" };

describe("a bad answer is a violation that says where", () => {
  test("envdAccessToken: null, where the spec allows only a string", () => {
    const found = checker.check({ method: "POST", path: "/sandboxes", status: 201, responseBody: { ...SANDBOX, envdAccessToken: null } });
    expect(found.map(formatViolation)).toEqual(["POST /sandboxes → 201 response /envdAccessToken: must be string"]);
  });

  test("a missing required field is named by its own path", () => {
    const { clientID: _, ...rest } = SANDBOX;
    const found = checker.check({ method: "GET", path: "/sandboxes/i1/metrics", status: 200, responseBody: [{}] });
    expect(found.map((v) => v.path)).toContain("/0/timestampUnix");
    expect(checker.check({ method: "POST", path: "/sandboxes", status: 201, responseBody: rest })[0]).toMatchObject({ path: "/clientID", message: "must have required property 'clientID'" });
  });

  test("a status the operation does not list", () => {
    const [v] = checker.check({ method: "POST", path: "/sandboxes/i1/refreshes", status: 200 });
    expect(formatViolation(v!)).toBe("POST /sandboxes/{sandboxID}/refreshes → 200 response (body): status 200 is not one the operation lists (204, 401, 404)");
  });

  test("a body on a 204, and no body where one is due", () => {
    expect(checker.check({ method: "DELETE", path: "/sandboxes/i1", status: 204, responseBody: {} })[0]?.message).toBe("a body where the spec defines none");
    expect(checker.check({ method: "GET", path: "/sandboxes/i1", status: 200 })[0]?.message).toBe("no body; the spec defines one");
  });

  test("an error answer must have the Error shape, a status outside the spec included", () => {
    expect(checker.check({ method: "GET", path: "/sandboxes/i1", status: 404, responseBody: { error: "nope" } }).map((v) => v.path)).toEqual(["/code", "/message"]);
    // 400 "Invalid sandbox ID" is not in the spec, but the service answers it (service-deviations.ts).
    expect(checker.check({ method: "GET", path: "/sandboxes/x", status: 400, responseBody: { code: 400, message: "Invalid sandbox ID" } })).toEqual([]);
    expect(checker.check({ method: "GET", path: "/sandboxes/x", status: 400, responseBody: "Invalid" })).toHaveLength(1);
  });

  test("our sdk's requests are held to the request schema, unless the answer refused them", () => {
    const bad = { method: "POST", path: "/sandboxes/i1/timeout", status: 204, requestRead: true, requestBody: { timeout: "10" }, checkRequest: true };
    expect(checker.check(bad).map(formatViolation)).toEqual(["POST /sandboxes/{sandboxID}/timeout → 204 request /timeout: must be integer"]);
    expect(checker.check({ ...bad, status: 400, responseBody: { code: 400, message: "bad" } })).toEqual([]);
    expect(checker.check({ ...bad, checkRequest: false })).toEqual([]);
  });

  test("envd's HTTP answers are held to envd.yaml: an upload entry without its type", () => {
    const envd = new ContractChecker(loadContract(ENVD_HTTP_CONTRACT));
    const found = envd.check({ method: "POST", path: "/files", status: 200, responseBody: [{ path: "/home/user/a", name: "a" }] });
    expect(found.map(formatViolation)).toEqual(["POST /files → 200 response /0/type: must have required property 'type'"]);
    // A download is a file, not JSON: there is no body to validate.
    expect(envd.check({ method: "GET", path: "/files", status: 200 })).toEqual([]);
  });

  test("the volume content API's answers: its Error has a string code", () => {
    const volumes = new ContractChecker(loadContract(VOLUME_CONTENT_CONTRACT));
    const path = "/volumecontent/0b6e2f3c-8a60-4f43-9d0a-1c2b3d4e5f60/path";
    expect(volumes.check({ method: "GET", path, status: 404, responseBody: { code: 404, message: "gone" } }).map(formatViolation)).toEqual([
      "GET /volumecontent/{volumeID}/path → 404 response /code: must be string",
    ]);
    expect(volumes.check({ method: "PATCH", path, status: 400, responseBody: { code: "400", message: "bad mode" } })).toEqual([]);
  });

  test("the literal path wins: /templates/aliases/{alias} is not /templates/{templateID}", () => {
    expect(checker.operationOf("GET", "/templates/aliases/base")).toBe("GET /templates/aliases/{alias}");
    expect(checker.operationOf("GET", "/templates/abc")).toBe("GET /templates/{templateID}");
    expect(checker.operationOf("GET", "/_emulator/calls")).toBeUndefined();
  });
});

describe("the newest clients' contracts", () => {
  test("hold operations the platform spec lacks: a v2 create's 201 without its sandboxID", () => {
    expect(checker.operationOf("POST", "/v2/sandboxes")).toBeUndefined();
    const { sandboxID: _, ...rest } = SANDBOX;
    for (const newest of [npmNewest, pypiNewest]) {
      expect(newest.check({ method: "POST", path: "/v2/sandboxes", status: 201, responseBody: rest }).map(formatViolation)).toEqual([
        "POST /v2/sandboxes → 201 response /sandboxID: must have required property 'sandboxID'",
      ]);
    }
  });

  test("the Python client's routes: a tag count that is not an integer, an exists answer without normalizedTag", () => {
    const path = "/templates/t1/tags";
    expect(pypiNewest.check({ method: "GET", path: `${path}/count`, status: 200, responseBody: { total: "3" } }).map(formatViolation)).toEqual([
      "GET /templates/{templateID}/tags/count → 200 response /total: must be integer",
    ]);
    expect(pypiNewest.check({ method: "GET", path: `${path}/exists`, status: 200, responseBody: { exists: true } })[0]).toMatchObject({ path: "/normalizedTag" });
    // The literal segment wins over the tag: /tags/count is not the assignments of a tag called "count".
    expect(pypiNewest.operationOf("GET", `${path}/count`)).toBe("GET /templates/{templateID}/tags/count");
    expect(pypiNewest.operationOf("GET", `${path}/v1/assignments`)).toBe("GET /templates/{templateID}/tags/{tag}/assignments");
  });

  test("the newest fields: pauseMode is one of two values, error_code a string", () => {
    const detail = { ...SANDBOX, startedAt: "2026-01-01T00:00:00Z", endAt: "2026-01-01T00:05:00Z", cpuCount: 2, memoryMB: 512, diskSizeMB: 1024, state: "paused" };
    expect(pypiNewest.check({ method: "GET", path: "/sandboxes/i1", status: 200, responseBody: { ...detail, pauseMode: "full" } })).toEqual([]);
    expect(pypiNewest.check({ method: "GET", path: "/sandboxes/i1", status: 200, responseBody: { ...detail, pauseMode: "memory" } })[0]).toMatchObject({ path: "/pauseMode" });
    expect(npmNewest.check({ method: "GET", path: "/sandboxes/i1", status: 404, responseBody: { code: 404, message: "gone", error_code: 7 } })[0]).toMatchObject({ path: "/error_code" });
  });

  test("their sources are the published packages", () => {
    expect(sourceLabel(npmNewest.contract.source)).toMatch(/^e2b \d+\.\d+\.\d+ \(npm\)$/);
    expect(sourceLabel(pypiNewest.contract.source)).toMatch(/^e2b \d+\.\d+\.\d+ \(pypi\)$/);
  });
});

describe("through a real emulator", () => {
  test("the exchange files of an emulator run are checked, a bad answer among them found", async () => {
    const dir = mkdtempSync(join(tmpdir(), "contract-test-"));
    const seen: Exchange[] = [];
    const observe = exchangeObserver((e) => seen.push(e), { [EXCHANGES_ENV]: dir });
    const emu = await createEmulator({ buildDelayMs: 10, onExchange: observe });
    try {
      const res = await fetch(`${emu.apiUrl}/sandboxes`, {
        method: "POST",
        headers: { "x-api-key": emu.apiKey, "content-type": "application/json", "user-agent": "pulumi-sandbox/test" },
        body: JSON.stringify({ templateID: "base" }),
      });
      expect(res.status).toBe(201);
      expect(seen).toMatchObject([{ method: "POST", path: "/sandboxes", status: 201, requestRead: true, requestBody: { templateID: "base" } }]);
      expect(checkExchangeDir(dir).violations).toEqual([]);
      // The same answer, spoiled the way the emulator used to answer, is caught in the file as well.
      observe!({ ...seen[0]!, responseBody: { ...(seen[0]!.responseBody as object), envdAccessToken: null } });
      const report = checkExchangeDir(dir);
      // Each platform contract that has the operation finds it: the spec's, then each newest client's.
      const spoiled = { operation: "POST /sandboxes", status: 201, path: "/envdAccessToken", file: "(unknown)" };
      const labels = NEWEST_CONTRACTS.map((p) => sourceLabel(loadContract(p).source));
      expect(report.violations).toMatchObject([spoiled, ...labels.map((contract) => ({ ...spoiled, contract }))]);
      expect(report.violations[0]).not.toHaveProperty("contract");
      expect(report.operations["POST /sandboxes"]).toEqual({ statuses: [201], files: ["(unknown)"], notServed: false });
      for (const label of labels) expect(report.newest[label]?.operations["POST /sandboxes"]).toEqual({ statuses: [201], files: ["(unknown)"], notServed: false });
      // envd's own HTTP answers are seen too, body included; the proxy's 502 for a stopped sandbox is not envd's.
      const sandboxID = (seen[0]!.responseBody as { sandboxID: string }).sandboxID;
      const envs = await fetch(`${emu.sandboxUrl}/envs`, { headers: { "e2b-sandbox-id": sandboxID } });
      expect(envs.status).toBe(200);
      await fetch(`${emu.sandboxUrl}/envs`, { headers: { "e2b-sandbox-id": "inot0running" } });
      expect(seen.filter((e) => e.area === "envd")).toMatchObject([{ area: "envd", method: "GET", path: "/envs", status: 200, responseBody: {} }]);
    } finally {
      await emu.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
