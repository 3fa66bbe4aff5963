/**
 * Every operation of the platform spec reaches a handler of the emulator: a served one answers as
 * a handler does (never 501, never the router's bare "no route" 404 or 405), an unserved one answers
 * 501 in the Error shape naming the operation. When the service adds an operation, or a route starts
 * serving one listed in emulator/routes/unserved.ts, this test says which list to change.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { UNSERVED_OPERATIONS } from "../../emulator/routes/unserved";
import { loadContract } from "./exchanges";

const contract = loadContract();
const operations = Object.keys(contract.operations);
let emu: Emulator;

beforeAll(async () => {
  emu = await createEmulator({ buildDelayMs: 10 });
});
afterAll(() => emu?.close());

/** Sends the operation with placeholder path parameters, both credentials and an empty JSON object. */
async function call(operation: string): Promise<{ status: number; body: { code?: number; message?: string } | undefined }> {
  const [method, path] = operation.split(" ") as [string, string];
  const url = emu.apiUrl + path.replace(/\{[^}]+\}/g, "i0placeholder0000000000");
  const headers = { "x-api-key": emu.apiKey, authorization: `Bearer ${emu.accessToken}`, "content-type": "application/json" };
  const res = await fetch(url, { method, headers, ...(method === "GET" || method === "DELETE" ? {} : { body: "{}" }) });
  const text = await res.text();
  return { status: res.status, body: text === "" ? undefined : (JSON.parse(text) as { code?: number; message?: string }) };
}

describe("each operation of the spec", () => {
  test("the unserved list names only operations of the spec, once each", () => {
    expect(UNSERVED_OPERATIONS.filter((op) => !operations.includes(op))).toEqual([]);
    expect(new Set(UNSERVED_OPERATIONS).size).toBe(UNSERVED_OPERATIONS.length);
  });

  test.each(operations)("%s reaches a handler", async (operation) => {
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

test("a path the spec does not have is still a plain 404", async () => {
  const res = await fetch(`${emu.apiUrl}/no-such-thing`, { headers: { "x-api-key": emu.apiKey } });
  expect(res.status).toBe(404);
  expect(await res.json()).toEqual({ code: 404, message: "no route for GET /no-such-thing" });
});

test("README's contract table lists each operation of the spec, served as the emulator serves it", () => {
  const readme = readFileSync(join(__dirname, "..", "..", "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Contract with the service"));
  const rows = [...section.matchAll(/^\| `([A-Z]+ [^`]+)` \| ([^|]+) \|/gm)].map((m) => [m[1], m[2]!.trim()]);
  const expected = operations.map((op) => [op, UNSERVED_OPERATIONS.includes(op) ? "no (501)" : "yes"]);
  expect(rows, "regenerate the table with `npm run contract` and paste it into README.md").toEqual(expected);
});
