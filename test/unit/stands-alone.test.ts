/**
 * The repository stands alone: a clone has everything its files cite. No tracked file points at the
 * reference folder the project was first written from (outside the repository), and every
 * section of docs/service.md a tracked file cites (the file name, `#`, an anchor) is one of its headings.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";

const ROOT = join(__dirname, "..", "..");
const DOC = "docs/service.md";
// Spelled in pieces so that this file does not match itself.
const OUTSIDE = ["shared" + "/spec", ".." + "/shared"];

function trackedFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" })
    .split("\0")
    .filter((path) => path !== "" && existsSync(join(ROOT, path)));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown text's headings (outside code fences), with GitHub's `-1`, `-2` for repeats. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug((heading[1] ?? "").replace(/`/g, ""));
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
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

  test(`every section of ${DOC} cited is a heading there`, () => {
    expect(files).toContain(DOC);
    const known = anchors(readFileSync(join(ROOT, DOC), "utf8"));
    const cited = texts.flatMap(([path, text]) => {
      const found = [...text.matchAll(/docs\/service\.md#([\w-]+)/g)].map((m) => ({ path, anchor: m[1] ?? "" }));
      // The page's own links, `](#anchor)`.
      if (path === DOC) found.push(...[...text.matchAll(/\]\(#([\w-]+)\)/g)].map((m) => ({ path, anchor: m[1] ?? "" })));
      return found;
    });
    expect(cited.length).toBeGreaterThan(20);
    expect(cited.filter((c) => !known.has(c.anchor)).map((c) => `${c.path}: #${c.anchor}`)).toEqual([]);
  });

  test("the slug follows GitHub's rules", () => {
    expect(slug("Connect wire rules")).toBe("connect-wire-rules");
    expect(slug("In-sandbox API")).toBe("in-sandbox-api");
    expect(slug("Errors (platform)")).toBe("errors-platform");
    expect([...anchors("# A\n## A\n```\n# not a heading\n```\n### `B` c")]).toEqual(["a", "a-1", "b-c"]);
  });
});
