import { spawnSync } from "node:child_process";
import { describe, expect, test } from "vitest";
import { migrate, stamped, VERSION } from "../../provider/runtime/migrate";
import { MINIMUM_NODE, nodeTooOld } from "../../sdk/node-version";

describe("the Node.js check at load", () => {
  test("names the version found, the minimum and the fix", () => {
    expect(nodeTooOld("v20.20.2")).toBe(
      `pulumi-sandbox needs Node.js ${MINIMUM_NODE} or newer, and this is Node.js v20.20.2. ` +
        "Install a newer Node.js (for example `npm install --save-dev node@24` and put node_modules/.bin first on PATH), then run again.",
    );
    expect(nodeTooOld("22.12.0")).toContain("needs Node.js 22.19.0");
  });

  test("the minimum is what the package says and what undici needs", () => {
    const pkg = require("../../package.json") as { engines: { node: string } };
    const undici = require("undici/package.json") as { engines: { node: string } };
    expect(pkg.engines.node).toBe(`>=${MINIMUM_NODE.replace(/\.0$/, "")}`);
    expect(undici.engines.node).toBe(`>=${MINIMUM_NODE}`);
    for (const ok of ["22.19.0", "22.23.3", "24.1.0"]) expect(nodeTooOld(ok), ok).toBeUndefined();
  });
});

describe("the Node.js the project runs on", () => {
  test("reports a program's error at once: util.inspect ends on the stack frames Pulumi's source maps make (nodejs/node#64011)", () => {
    // Node 22 (to 22.23.3) and 20 loop on this frame until the heap is gone; the language host
    // inspects every error a program throws from async code, with frames like it.
    const script = `const e = new Error("boom");
      e.stack = "Error: boom\\n    at async Stack.initializeAndRegisterOutputs (/p/node_modules/@pulumi/resource.ts:1598:22)";
      process.stdout.write(require("util").inspect(e, { colors: true }).includes("boom") ? "ok" : "?");`;
    const run = spawnSync(process.execPath, ["--max-old-space-size=64", "-e", script], { encoding: "utf8", timeout: 60_000 });
    expect({ status: run.status, stdout: run.stdout, node: process.version }).toMatchObject({ status: 0, stdout: "ok" });
  });
});

describe("state written by older versions", () => {
  test("a volume recorded before 0.2 gains volumeID; newer state is left as it is", () => {
    const old = { name: "data", volumeId: "v-1", token: "t" };
    expect(migrate("Volume", old)).toEqual({ ...old, volumeID: "v-1" });
    const current = stamped("Volume", { name: "data", volumeId: "v-1" });
    expect(migrate("Volume", current)).toBe(current);
    expect(migrate("Sandbox", old)).toBe(old);
  });

  test("a deprecated input name is read as its current one, and echoed in outputs for one release", () => {
    expect(migrate("Sandbox", { templateID: "base", timeout: 60 })).toEqual({ templateID: "base", timeoutSeconds: 60 });
    expect(stamped("Sandbox", { templateID: "base", timeoutSeconds: 60 })).toEqual({ templateID: "base", timeoutSeconds: 60, timeout: 60, __version: VERSION });
  });

  test("every result records the version that wrote it", () => {
    expect(stamped("Volume", { a: 1 })).toEqual({ a: 1, __version: VERSION });
    expect(VERSION).toBe((require("../../package.json") as { version: string }).version);
  });
});
