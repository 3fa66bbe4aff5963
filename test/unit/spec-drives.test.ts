/**
 * One declaration per resource drives everything: a field added to a spec, in a copy of the project,
 * is a compile error until the create's wire map places it (or says why it is not sent), and then
 * shows on the class's argument and output types, on the handlers' inputs, in schema.json and in the
 * reference on the kind's page (docs/volume.md), with no other edit. The same probes against the
 * unchanged project must fail.
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

// A handler may read only what the spec declares.
const HANDLER_PROBE = `import type { InputsOf } from "./provider/runtime/handlers";
export const read = (inputs: InputsOf<"Volume">): number | undefined => inputs.sizeGB;
`;

let copy: string;

/** A copy of what the types and the generator read, resolving packages from the project's node_modules. */
function copyProject(): string {
  const dir = mkdtempSync(join(tmpdir(), "spec-drives-"));
  // docs/ and examples/ too: `npm run gen` splices the examples into the registry pages.
  for (const part of ["provider", "sdk", "scripts", "docs", "examples", "README.md", "package.json", "tsconfig.json", "tsconfig.build.json"]) cpSync(join(ROOT, part), join(dir, part), { recursive: true, filter: notInstalled });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  writeFileSync(join(dir, "probe.ts"), PROBE);
  writeFileSync(join(dir, "tsconfig.probe.json"), JSON.stringify({ extends: "./tsconfig.json", include: [], files: ["probe.ts"] }));
  writeFileSync(join(dir, "handler-probe.ts"), HANDLER_PROBE);
  writeFileSync(join(dir, "tsconfig.runtime.json"), JSON.stringify({ extends: "./tsconfig.json", include: [], files: ["provider/runtime/index.ts"] }));
  writeFileSync(join(dir, "tsconfig.handler.json"), JSON.stringify({ extends: "./tsconfig.json", include: [], files: ["handler-probe.ts"] }));
  return dir;
}

function typecheck(dir: string, project = "tsconfig.probe.json"): string {
  try {
    execFileSync(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", project, "--noEmit"], { cwd: dir, encoding: "utf8", stdio: "pipe" });
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
  test("is unknown to the class and to the handlers before it is added (the probes can fail)", () => {
    expect(typecheck(copy)).toMatch(/sizeGB/);
    expect(typecheck(copy, "tsconfig.handler.json")).toMatch(/handler-probe\.ts.*Property 'sizeGB' does not exist/);
  }, 120_000);

  test("must be placed in the wire body, then appears on the class's args and outputs, the handlers' inputs, schema.json and the kind's page", () => {
    const file = join(copy, "provider", "kinds", "volume", "spec.ts");
    const spec = readFileSync(file, "utf8");
    const anchor = "export const VolumeInputs = z.strictObject({\n";
    expect(spec).toContain(anchor);
    writeFileSync(file, spec.replace(anchor, `${anchor}  sizeGB: z.number().optional().describe("A throwaway field of this test."),\n`));
    // The wire body of the create must now say where the field goes, or why it is not sent.
    expect(typecheck(copy, "tsconfig.runtime.json")).toMatch(/provider\/kinds\/volume\/volume\.ts.*Property 'sizeGB' is missing/);
    const handlers = join(copy, "provider", "kinds", "volume", "volume.ts");
    const code = readFileSync(handlers, "utf8");
    expect(code).toContain("  name: (name) => ({ name }),\n");
    writeFileSync(handlers, code.replace("  name: (name) => ({ name }),\n", "  name: (name) => ({ name }),\n  sizeGB: \"not sent: a throwaway field\",\n"));
    for (const project of ["tsconfig.runtime.json", "tsconfig.probe.json", "tsconfig.handler.json"]) expect(typecheck(copy, project), project).toBe("");
    const out = mkdtempSync(join(tmpdir(), "spec-drives-gen-"));
    try {
      generate(copy, out);
      const schema = JSON.parse(readFileSync(join(out, "schema.json"), "utf8"));
      expect(schema.resources["sandbox:index:Volume"].inputProperties.sizeGB).toEqual({
        type: "number", description: "A throwaway field of this test.", replaceOnChanges: true, willReplaceOnChanges: true,
      });
      expect(schema.resources["sandbox:index:Volume"].properties.sizeGB).toMatchObject({ type: "number" });
      expect(readFileSync(join(out, "docs", "volume.md"), "utf8")).toMatch(/\| `sizeGB` \| number \|.*A throwaway field of this test\. \|/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});

/** Leaves out what an install put in the tree (an example's node_modules or venv): the generator reads none of it. */
function notInstalled(src: string): boolean {
  return !/[\\/](?:node_modules|venv|\.venv)(?:[\\/]|$)/.test(src);
}
