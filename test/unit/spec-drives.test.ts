/**
 * One declaration per resource drives everything: a field added to a spec, in a copy of the project,
 * shows on the class's argument and output types, in schema.json and in the README reference, with
 * no other edit. The same type probe against the unchanged project must fail, or it proves nothing.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
// @ts-expect-error: plain ESM script, shared with npm run gen
import { generate } from "../../scripts/gen-schema.mjs";

const ROOT = join(__dirname, "..", "..");
const PROBE = `import type * as pulumi from "@pulumi/pulumi";
import { Volume } from "./provider/classes";
const volume = new Volume("probe", { sizeGB: 10 });
export const size: pulumi.Output<number | undefined> = volume.sizeGB;
`;

let copy: string;

/** A copy of what the types and the generator read, resolving packages from the project's node_modules. */
function copyProject(): string {
  const dir = mkdtempSync(join(tmpdir(), "spec-drives-"));
  for (const part of ["provider", "sdk", "scripts", "README.md", "package.json", "tsconfig.json", "tsconfig.build.json"]) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  writeFileSync(join(dir, "probe.ts"), PROBE);
  writeFileSync(join(dir, "tsconfig.probe.json"), JSON.stringify({ extends: "./tsconfig.json", include: [], files: ["probe.ts"] }));
  return dir;
}

function typecheck(dir: string): string {
  try {
    execFileSync(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.probe.json", "--noEmit"], { cwd: dir, encoding: "utf8", stdio: "pipe" });
    return "";
  } catch (err) {
    return String((err as { stdout?: string }).stdout ?? err);
  }
}

beforeAll(() => {
  copy = copyProject();
});
afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe("a field added to a spec", () => {
  test("is unknown to the class before it is added (the probe can fail)", () => {
    expect(typecheck(copy)).toMatch(/sizeGB/);
  }, 120_000);

  test("appears on the class's args and outputs, in schema.json and in the README reference", () => {
    const file = join(copy, "provider", "specs", "volume.ts");
    const spec = readFileSync(file, "utf8");
    const anchor = "export const VolumeInputs = z.strictObject({\n";
    expect(spec).toContain(anchor);
    writeFileSync(file, spec.replace(anchor, `${anchor}  sizeGB: z.number().optional().describe("A throwaway field of this test."),\n`));
    expect(typecheck(copy)).toBe("");
    const out = mkdtempSync(join(tmpdir(), "spec-drives-gen-"));
    try {
      generate(copy, out);
      const schema = JSON.parse(readFileSync(join(out, "schema.json"), "utf8"));
      expect(schema.resources["sandbox:index:Volume"].inputProperties.sizeGB).toEqual({
        type: "number", description: "A throwaway field of this test.", replaceOnChanges: true, willReplaceOnChanges: true,
      });
      expect(schema.resources["sandbox:index:Volume"].properties.sizeGB).toMatchObject({ type: "number" });
      expect(readFileSync(join(out, "README.md"), "utf8")).toMatch(/\| `sizeGB` \| number \|.*A throwaway field of this test\. \|/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
