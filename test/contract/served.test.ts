/**
 * Every operation of the platform spec reaches a handler of the emulator: a served one answers as
 * a handler does (never 501, never the router's bare "no route" 404 or 405), an unserved one answers
 * 501 in the Error shape naming the operation. When the service adds an operation, or a route starts
 * serving one listed in emulator/routes/unserved.ts, this test says which list to change. The newest
 * clients' contracts (NEWEST_CONTRACTS) count as the service's too: their operations that the platform
 * spec lacks are called here as well, each reaching a handler (test/contract/newest-routes.test.ts
 * calls each with a request it takes).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { CONTROL_PLANE_MESSAGE, CONTROL_PLANE_PATHS } from "../../emulator/envd/control-plane";
import { UNSERVED_ENVD_OPERATIONS } from "../../emulator/envd/http-api";
import { DASHBOARD_PREFIX, DASHBOARD_UNSERVED_OPERATIONS } from "../../emulator/routes/dashboard";
import { UNSERVED_OPERATIONS } from "../../emulator/routes/unserved";
import { sourceLabel } from "./checker";
import { DASHBOARD_CONTRACT, ENVD_HTTP_CONTRACT, LIFECYCLE_EVENTS_CONTRACT, loadContract, NEWEST_CONTRACTS, VOLUME_CONTENT_CONTRACT } from "./exchanges";

const contract = loadContract();
const operations = Object.keys(contract.operations);
const newestContracts = NEWEST_CONTRACTS.map((path) => loadContract(path));
/** Operations of the newest clients that the platform spec does not have, each once. */
const newestOnly = [...new Set(newestContracts.flatMap((c) => Object.keys(c.operations)))].filter((op) => !operations.includes(op));
const envdOperations = Object.keys(loadContract(ENVD_HTTP_CONTRACT).operations);
/** The volume content API shares the platform's origin; the emulator serves all of it. */
const volumeOperations = Object.keys(loadContract(VOLUME_CONTENT_CONTRACT).operations);
/** Lifecycle events and webhooks, written from the service's docs; the emulator serves all of it. */
const eventOperations = Object.keys(loadContract(LIFECYCLE_EVENTS_CONTRACT).operations);
/** E2B's dashboard API, under DASHBOARD_PREFIX; the emulator serves the reads the public dashboard makes. */
const dashboardOperations = Object.keys(loadContract(DASHBOARD_CONTRACT).operations);
let emu: Emulator;

beforeAll(async () => {
  emu = await createEmulator({ buildDelayMs: 10 });
});
afterAll(() => emu?.close());

/** Sends the operation with placeholder path parameters, both credentials and an empty JSON object. */
async function call(operation: string, prefix = ""): Promise<{ status: number; body: { code?: number; message?: string } | undefined }> {
  const [method, path] = operation.split(" ") as [string, string];
  const url = emu.apiUrl + prefix + path.replace(/\{[^}]+\}/g, "i0placeholder0000000000");
  const headers = { "x-api-key": emu.apiKey, authorization: `Bearer ${emu.accessToken}`, "content-type": "application/json" };
  const res = await fetch(url, { method, headers, ...(method === "GET" || method === "DELETE" ? {} : { body: "{}" }) });
  const text = await res.text();
  // GET /health answers text, as the service does; every other operation answers JSON or nothing.
  const isJson = res.headers.get("content-type")?.includes("json") === true;
  return { status: res.status, body: text === "" || !isJson ? undefined : (JSON.parse(text) as { code?: number; message?: string }) };
}

describe("each operation of the spec", () => {
  test("the unserved list names only operations of the spec, once each", () => {
    expect(UNSERVED_OPERATIONS.filter((op) => !operations.includes(op))).toEqual([]);
    expect(new Set(UNSERVED_OPERATIONS).size).toBe(UNSERVED_OPERATIONS.length);
  });

  test("the newest clients add operations, and the emulator serves every one of them", () => {
    expect(newestOnly.length).toBeGreaterThan(0);
    expect(newestOnly.filter((op) => UNSERVED_OPERATIONS.includes(op))).toEqual([]);
  });

  test.each([...operations, ...volumeOperations, ...eventOperations, ...newestOnly])("%s reaches a handler", async (operation) => {
    const { status, body } = await call(operation);
    if (UNSERVED_OPERATIONS.includes(operation)) {
      expect({ status, body }, "listed in emulator/routes/unserved.ts: must answer 501").toEqual({
        status: 501,
        body: { code: 501, message: `${operation} is not implemented by the emulator` },
      });
      return;
    }
    expect(status, `${operation} is neither routed nor listed in emulator/routes/unserved.ts`).not.toBe(501);
    expect(status === 405 || (status === 404 && /^no route/.test(body?.message ?? "")), `${operation}: the router answered ${status} ${body?.message}`).toBe(false);
  });
});

describe("each operation of the dashboard API (infra spec/openapi-dashboard.yml), under its prefix", () => {
  test("the unserved list names only operations of the dashboard spec, once each", () => {
    expect(DASHBOARD_UNSERVED_OPERATIONS.filter((op) => !dashboardOperations.includes(op))).toEqual([]);
    expect(new Set(DASHBOARD_UNSERVED_OPERATIONS).size).toBe(DASHBOARD_UNSERVED_OPERATIONS.length);
  });

  test.each(dashboardOperations)("dashboard %s reaches a handler", async (operation) => {
    const { status, body } = await call(operation, DASHBOARD_PREFIX);
    if (DASHBOARD_UNSERVED_OPERATIONS.includes(operation)) {
      expect({ status, body }, "listed in emulator/routes/dashboard.ts: must answer 501").toEqual({
        status: 501,
        body: { code: 501, message: `dashboard API ${operation} is not implemented by the emulator` },
      });
      return;
    }
    expect(status, `${operation} is neither routed nor listed in DASHBOARD_UNSERVED_OPERATIONS`).not.toBe(501);
    expect(status === 405 || (status === 404 && /^no route/.test(body?.message ?? "")), `${operation}: the router answered ${status} ${body?.message}`).toBe(false);
  });
});

describe("each plain HTTP operation of envd (envd.yaml), on a running sandbox", () => {
  let sandboxID = "";
  beforeAll(async () => {
    const res = await fetch(`${emu.apiUrl}/sandboxes`, {
      method: "POST",
      headers: { "x-api-key": emu.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ templateID: "base", envVars: { GREETING: "hi" } }),
    });
    sandboxID = ((await res.json()) as { sandboxID: string }).sandboxID;
  });
  const envd = (method: string, path: string) =>
    fetch(`${emu.sandboxUrl}${path}`, { method, headers: { "e2b-sandbox-id": sandboxID, "content-type": "application/json" }, ...(method === "POST" ? { body: "{}" } : {}) });

  test("the unserved list names only operations of envd.yaml", () => {
    expect(UNSERVED_ENVD_OPERATIONS.filter((op) => !envdOperations.includes(op))).toEqual([]);
  });

  test.each(envdOperations)("%s reaches a handler", async (operation) => {
    const [method, path] = operation.split(" ") as [string, string];
    const res = await envd(method, path);
    const text = await res.text();
    if (UNSERVED_ENVD_OPERATIONS.includes(operation)) {
      expect({ status: res.status, body: JSON.parse(text) as unknown }).toEqual({ status: 501, body: { code: 501, message: `${operation} is not implemented by the emulator` } });
    } else if (CONTROL_PLANE_PATHS.includes(path)) {
      // The proxy keeps these for the orchestrator, as the service's does.
      expect({ status: res.status, body: JSON.parse(text) as unknown }).toEqual({ status: 404, body: { code: 404, message: CONTROL_PLANE_MESSAGE, path } });
    } else {
      expect(text, `${operation} is neither served nor listed in emulator/envd/http-api.ts`).not.toBe("404 page not found\n");
      expect(res.status).not.toBe(501);
    }
  });

  test("GET /envs answers the sandbox's environment variables, envd's own included", async () => {
    const res = await envd("GET", "/envs");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ GREETING: "hi", E2B_SANDBOX: "true", E2B_SANDBOX_ID: sandboxID, E2B_TEMPLATE_ID: expect.any(String) });
  });
});

test("a path the spec does not have is still a plain 404", async () => {
  const res = await fetch(`${emu.apiUrl}/no-such-thing`, { headers: { "x-api-key": emu.apiKey } });
  expect(res.status).toBe(404);
  expect(await res.json()).toEqual({ code: 404, message: "no route for GET /no-such-thing" });
});

test(`the contract tables of docs/service-contract.md list each operation of the specs and of ${newestContracts.map((c) => sourceLabel(c.source)).join(", ")}, served as the emulator serves it`, () => {
  const section = readFileSync(join(__dirname, "..", "..", "docs", "service-contract.md"), "utf8");
  const rows = [...section.matchAll(/^\| `((?:envd |dashboard )?[A-Z]+ [^`]+)` \| ([^|]+) \|/gm)].map((m) => [m[1], m[2]!.trim()]);
  const expected = [
    ...operations.map((op) => [op, UNSERVED_OPERATIONS.includes(op) ? "no (501)" : "yes"]),
    ...envdOperations.map((op) => [`envd ${op}`, UNSERVED_ENVD_OPERATIONS.includes(op) ? "no (501)" : "yes"]),
    ...volumeOperations.map((op) => [op, "yes"]),
    ...eventOperations.map((op) => [op, "yes"]),
    ...dashboardOperations.map((op) => [`dashboard ${op}`, DASHBOARD_UNSERVED_OPERATIONS.includes(op) ? "no (501)" : "yes"]),
    ...newestContracts.flatMap((c) => Object.keys(c.operations).map((op) => [op, UNSERVED_OPERATIONS.includes(op) ? "no (501)" : "yes"])),
  ];
  expect(rows, "regenerate the table with `npm run contract` and paste it into docs/service-contract.md").toEqual(expected);
});
