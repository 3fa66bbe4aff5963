/**
 * The repository stands alone: a clone has everything its files cite. No tracked file points at the
 * reference folder the project was first written from (outside the repository), and every section of
 * a page a tracked file cites by path (README.md, CONTRIBUTING.md or docs/<page>.md, `#`, an anchor:
 * `docs/service.md#errors` in a code comment) is one of that page's headings. Relative links between
 * the pages are test/unit/doc-links.test.ts's.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { anchors, slug } from "./markdown-links";

const ROOT = join(__dirname, "..", "..");
const DOC = "docs/service.md";
/** A page cited by its path from the root, then `#` and an anchor; not another folder's README.md. */
const CITED = /(?<![\w./-])((?:docs\/[\w-]+|README|CONTRIBUTING)\.md)#([\w-]+)/g;
// Spelled in pieces so that this file does not match itself.
const OUTSIDE = ["shared" + "/spec", ".." + "/shared"];

function trackedFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" })
    .split("\0")
    .filter((path) => path !== "" && existsSync(join(ROOT, path)));
}

describe("the repository stands alone", () => {
  const files = trackedFiles();
  const texts = files.map((path) => [path, readFileSync(join(ROOT, path), "latin1")] as const);

  test("no tracked file points outside the repository for its facts", () => {
    const offenders = texts.flatMap(([path, text]) =>
      text.split("\n").flatMap((line, i) => (OUTSIDE.some((s) => line.includes(s)) ? [`${path}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(offenders).toEqual([]);
  });

  test("every section of a page cited by its path (docs/service.md#errors) is a heading there", () => {
    expect(files).toContain(DOC);
    const known = new Map<string, Set<string>>();
    const anchorsOf = (page: string) => known.get(page) ?? (known.set(page, existsSync(join(ROOT, page)) ? anchors(readFileSync(join(ROOT, page), "utf8")) : new Set()), known.get(page)!);
    const cited = texts.flatMap(([path, text]) => [...text.matchAll(CITED)].map((m) => ({ path, page: m[1] ?? "", anchor: m[2] ?? "" })));
    expect(cited.filter((c) => c.page === DOC).length).toBeGreaterThan(20);
    expect(cited.filter((c) => !anchorsOf(c.page).has(c.anchor)).map((c) => `${c.path}: ${c.page}#${c.anchor}`)).toEqual([]);
  });

  test("the slug follows GitHub's rules", () => {
    expect(slug("Connect wire rules")).toBe("connect-wire-rules");
    expect(slug("In-sandbox API")).toBe("in-sandbox-api");
    expect(slug("Errors (platform)")).toBe("errors-platform");
    expect([...anchors("# A\n## A\n```\n# not a heading\n```\n### `B` c")]).toEqual(["a", "a-1", "b-c"]);
  });
});
