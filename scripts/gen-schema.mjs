// The schema step of `npm run gen` (called by scripts/gen.mjs): provider specs -> schema.json and the
// generated reference section of README.md. The specs are TypeScript, so this compiles the schema
// builder (provider/schema/build.ts and what it imports, nothing else) into a private temp folder and
// loads it from there. Not into dist/: other tests load dist/ while the drift test runs, and a
// half-written dist/ would break them; and a type error elsewhere in the project must not stop gen.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { generate as generateDocs } from "./gen-docs.mjs";

/**
 * Writes `<outDir>/schema.json`, `<outDir>/README.md` (`<root>/README.md` with its reference regenerated) and
 * the registry pages (./gen-docs.mjs), whose config table is the README's.
 */
export function generate(root, outDir) {
  const builder = compileBuilder(root);
  try {
    const { buildSchema, configTable, renderReference, spliceReference } = createRequire(import.meta.url)(join(builder, "provider", "schema", "build.js"));
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    // The whole package.json: the schema takes its version, description, license and repository (provider/schema/release.ts).
    const schema = buildSchema(pkg);
    const readme = spliceReference(readFileSync(join(root, "README.md"), "utf8"), renderReference(schema));
    writeFileSync(join(outDir, "schema.json"), `${JSON.stringify(schema, null, 2)}\n`);
    writeFileSync(join(outDir, "README.md"), readme);
    generateDocs(root, outDir, configTable(schema));
  } finally {
    rmSync(builder, { recursive: true, force: true });
  }
}

/**
 * Compiles the builder (or another `entry` of provider/, with what it imports) with the project's
 * compiler options. The folder sits under node_modules/ so the compiled code resolves zod and friends
 * from the project; one folder per run, so runs never collide.
 */
export function compileBuilder(root, entry = join("provider", "schema", "build.ts")) {
  const cache = join(root, "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, "gen-schema-"));
  const tsconfig = join(dir, "tsconfig.json");
  writeFileSync(tsconfig, JSON.stringify({
    extends: join(root, "tsconfig.build.json"),
    compilerOptions: { rootDir: root, outDir: dir, noEmit: false, declaration: false, sourceMap: false },
    include: [],
    files: [join(root, entry)],
  }));
  try {
    execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-p", tsconfig], { cwd: root, encoding: "utf8", stdio: "pipe" });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`gen-schema: compiling ${entry} failed:\n${err.stdout ?? ""}${err.stderr ?? err.message}`);
  }
  return dir;
}
