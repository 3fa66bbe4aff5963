/**
 * The import graph of the project's own code is acyclic, type-only imports included: a cycle makes
 * load order matter (a module sees the other half-initialised) and makes the layers meaningless.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, test } from "vitest";

const ROOT = join(__dirname, "..", "..");
const FOLDERS = ["sdk", "provider", "emulator"];
// `import … from "./x"`, `import type …`, `export … from "./x"`, `import "./x"`, and `import("./x")`
// (a kind's handlers are loaded so, and a lazy edge closes a circle as surely): relative specifiers only.
const IMPORT = /(?:^|\n)\s*(?:import|export)\s(?:[^;]*?\sfrom\s)?["'](\.{1,2}\/[^"']+)["']|\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

function* tsFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* tsFiles(path);
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) yield path;
  }
}

function resolveImport(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec.replace(/\.js$/, ""));
  for (const candidate of [`${base}.ts`, join(base, "index.ts")]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** Edges of the graph: file → the project files it imports. */
export function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const targets = [...text.matchAll(IMPORT)].map((m) => resolveImport(file, (m[1] ?? m[2])!)).filter((t): t is string => t !== undefined);
    graph.set(file, targets);
  }
  return graph;
}

/** Every cycle, each once, as the list of files around it. */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const seen = new Set<string>();
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") {
        const cycle = stack.slice(stack.indexOf(next));
        const key = [...cycle].sort().join("|");
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push(cycle);
        }
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

describe("import graph", () => {
  test("the checker finds a cycle, type-only edges included", () => {
    const graph = new Map([["a.ts", ["b.ts"]], ["b.ts", ["c.ts"]], ["c.ts", ["a.ts"]], ["d.ts", ["a.ts"]]]);
    expect(cyclesOf(graph)).toEqual([["a.ts", "b.ts", "c.ts"]]);
    const text = "import type { X } from \"./x\";\nexport { y } from '../y';\nconst h = async () => (await import(\"./z.js\")).h;";
    expect([...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2])).toEqual(["./x", "../y", "./z.js"]);
  });

  test("sdk/, provider/ and emulator/ have no import cycle", () => {
    const files = FOLDERS.flatMap((f) => [...tsFiles(join(ROOT, f))]);
    const cycles = cyclesOf(importGraph(files)).map((c) => c.map((f) => relative(ROOT, f)).join(" → "));
    expect(cycles).toEqual([]);
  });
});
