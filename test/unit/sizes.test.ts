/**
 * The size rule of the style guide (CONTRIBUTING.md, Style): no source file over 300 lines, no
 * function over 60, so that each file holds one concept and each function reads at once. Functions
 * are found with the TypeScript parser (the `typescript` package, also read by ts-node), which reads
 * the .mjs scripts too; a function's lines run from its first token to its closing one, and a nested
 * function counts in its own right as well as in its parent's lines. Generated files are the
 * generators' to size: they are the ones that open with Go's "Code generated … DO NOT EDIT." line
 * (sdk/gen/ from scripts/gen.mjs, provider/classes.ts and class-shapes.ts from gen-class-shapes.mjs).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, test } from "vitest";

const ROOT = join(__dirname, "..", "..");
const FOLDERS = ["provider", "sdk", "emulator", "scripts", "bench"];
const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 60;
/** Files the TypeScript parser reads; other code (a Go helper, a shell script) is held to the file rule only. */
const PARSED = /\.(ts|mts|cts|js|mjs|cjs)$/;
const CODE = /\.(ts|mts|cts|js|mjs|cjs|go|sh)$/;
const GENERATED = /^\/\/ Code generated .* DO NOT EDIT\.$/m;

/** The tracked code of the checked folders, generated files left out, with their text. */
function sourceFiles(): { path: string; text: string }[] {
  const tracked = execFileSync("git", ["ls-files", "-z", "--", ...FOLDERS], { cwd: ROOT, encoding: "utf8" }).split("\0");
  return tracked
    .filter((path) => CODE.test(path) && !path.endsWith(".d.ts"))
    .map((path) => ({ path, text: readFileSync(join(ROOT, path), "utf8") }))
    .filter(({ text }) => !isGenerated(text));
}

function isGenerated(text: string): boolean {
  return GENERATED.test(text.slice(0, text.indexOf("\n") + 1 || undefined));
}

/** Lines as `wc -l` counts them: a last line without its newline still counts. */
function lineCount(text: string): number {
  const lines = text.split("\n").length;
  return text.endsWith("\n") ? lines - 1 : lines;
}

/** The name a reader looks for: the function's own, else the variable, property or class member holding it. */
function functionName(node: ts.SignatureDeclaration, file: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return "constructor";
  if (node.name) return node.name.getText(file);
  const holder = node.parent;
  if ((ts.isVariableDeclaration(holder) || ts.isPropertyAssignment(holder) || ts.isPropertyDeclaration(holder)) && holder.name) {
    return holder.name.getText(file);
  }
  return `(${ts.isArrowFunction(node) ? "arrow function" : "anonymous function"})`;
}

/** Every function with a body longer than `max` lines: `path:line name (N lines)`. */
function longFunctions(path: string, text: string, max: number): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const lines = file.getLineAndCharacterOfPosition(node.end).line - first + 1;
      if (lines > max) found.push(`${path}:${first + 1} ${functionName(node, file)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** A function of `bodyLines` statement lines, held by a const, with its opening and closing lines. */
const fixture = (bodyLines: number) => `const f = () => {\n${"  g();\n".repeat(bodyLines)}};\n`;

describe("sizes (CONTRIBUTING.md, Style)", () => {
  const files = sourceFiles();

  test("the check reads the project's code and leaves the generated files out", () => {
    const paths = files.map((f) => f.path);
    expect(paths).toContain("emulator/confined/walk.ts");
    expect(paths).toContain("scripts/gen.mjs");
    for (const generated of ["provider/classes.ts", "provider/class-shapes.ts"]) {
      expect(isGenerated(readFileSync(join(ROOT, generated), "utf8")), generated).toBe(true);
      expect(paths).not.toContain(generated);
    }
    expect(paths.filter((p) => p.startsWith("sdk/gen/"))).toEqual([]);
  });

  test("a function is measured from its first line to its last, nested ones too", () => {
    expect(longFunctions("a.ts", fixture(58), 60)).toEqual([]);
    expect(longFunctions("a.ts", fixture(59), 60)).toEqual(["a.ts:1 f (61 lines)"]);
    const nested = `function outer() {\n${fixture(59)}}\n`;
    expect(longFunctions("b.mjs", nested, 60)).toEqual(["b.mjs:1 outer (63 lines)", "b.mjs:2 f (61 lines)"]);
  });

  test(`no file over ${MAX_FILE_LINES} lines`, () => {
    const long = files.map(({ path, text }) => ({ path, lines: lineCount(text) })).filter((f) => f.lines > MAX_FILE_LINES);
    const named = long.map((f) => `${f.path} (${f.lines} lines)`);
    expect(named, `split these files by concept, each at most ${MAX_FILE_LINES} lines:\n${named.join("\n")}`).toEqual([]);
  });

  test(`no function over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = files.filter(({ path }) => PARSED.test(path)).flatMap(({ path, text }) => longFunctions(path, text, MAX_FUNCTION_LINES));
    expect(long, `split these functions into named steps, each at most ${MAX_FUNCTION_LINES} lines:\n${long.join("\n")}`).toEqual([]);
  });
});
