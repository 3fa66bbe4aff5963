import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { expect, test } from "vitest";

const root = join(__dirname, "..", "..");

// Generated code is never edited by hand: regenerating from the sources must change nothing.
test("npm run gen reproduces every committed generated file", () => {
  const out = execFileSync(process.execPath, [join(root, "scripts", "gen.mjs"), "--check"], { cwd: root, encoding: "utf8" });
  expect(out).toContain("generated files are up to date");
}, 120_000);
