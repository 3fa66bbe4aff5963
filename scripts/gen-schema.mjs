// The schema step of `npm run gen` (called by scripts/gen.mjs): provider specs -> schema.json and the
// generated reference sections of the docs pages (each kind's docs/<kind>.md, docs/lookups.md,
// docs/configuration.md, docs/reruns-and-identity.md: provider/schema/reference.ts). The specs are
// TypeScript, so this compiles the schema builder (provider/schema/build.ts and what it imports, nothing
// else) into a private temp folder and loads it from there. Not into dist/: other tests load dist/ while
// the drift test runs, and a half-written dist/ would break them; and a type error elsewhere in the
// project must not stop gen.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { DOC_FILES, generate as generateDocs } from "./gen-docs.mjs";

/**
 * Writes `<outDir>/schema.json`, each page of the reference (`<root>`'s page with its section
 * regenerated; a kind's page that does not exist yet starts as its title and the section) and the
 * registry pages (./gen-docs.mjs), whose config table is the reference's. Returns the files written
 * besides schema.json, relative to `outDir`.
 */
export function generate(root, outDir) {
  const builder = compileBuilder(root);
  try {
    const { buildSchema, configTable, renderReference, spliceReference, startPage } = createRequire(import.meta.url)(join(builder, "provider", "schema", "build.js"));
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    // The whole package.json: the schema takes its version, description, license and repository (provider/schema/release.ts).
    const schema = buildSchema(pkg);
    writeFileSync(join(outDir, "schema.json"), `${JSON.stringify(schema, null, 2)}\n`);
    const pages = renderReference(schema).map(({ file, section, kind }) => {
      const committed = join(root, file);
      if (!kind && !existsSync(committed)) throw new Error(`gen-schema: ${file} is missing; it holds a reference section between markers, so restore it`);
      const page = existsSync(committed) ? readFileSync(committed, "utf8") : startPage(kind);
      mkdirSync(dirname(join(outDir, file)), { recursive: true });
      writeFileSync(join(outDir, file), spliceReference(page, section, file));
      return file;
    });
    generateDocs(root, outDir, configTable(schema));
    return [...pages, ...DOC_FILES];
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
