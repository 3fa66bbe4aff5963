/**
 * The docs hold together: every relative link and anchor of README.md, CONTRIBUTING.md and docs/*.md
 * resolves (the file is in the checkout, the `#anchor` is a heading of it as GitHub computes one), and a
 * newcomer finds every page from the README: each page of docs/ is linked from it, and each kind of the
 * registry has its page (docs/<kind>.md, which `npm run gen` starts when it is missing) in the README's
 * list of kinds.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { KINDS } from "../../provider/kinds";
import { kindPage } from "../../provider/schema/reference";
import { anchors, brokenLinks, links } from "./markdown-links";

const ROOT = join(__dirname, "..", "..");
const PAGES = ["README.md", "CONTRIBUTING.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
const readme = readFileSync(join(ROOT, "README.md"), "utf8");
/** The README's links, as paths from the repository's root, anchors dropped. */
const fromReadme = new Set(links(readme).map((l) => l.target.split("#")[0]!.replace(/^\.\//, "")));

describe("the docs' links", () => {
  test("every relative link and anchor of README.md, CONTRIBUTING.md and docs/*.md resolves", () => {
    const count = PAGES.reduce((n, page) => n + links(readFileSync(join(ROOT, page), "utf8")).length, 0);
    expect(count).toBeGreaterThan(100);
    expect(brokenLinks(ROOT, PAGES)).toEqual([]);
  });

  test("every page of docs/ is linked from the README", () => {
    expect(PAGES.filter((page) => page.startsWith("docs/") && !fromReadme.has(page))).toEqual([]);
  });

  test("every kind's page is in the README's list of kinds, and exists", () => {
    const list = readme.slice(readme.indexOf("## The resources"), readme.indexOf("\n## ", readme.indexOf("## The resources") + 1));
    const listed = new Set(links(list).map((l) => l.target));
    expect(KINDS.filter((kind) => !PAGES.includes(kindPage(kind))), "kinds with no page (run `npm run gen`)").toEqual([]);
    expect(KINDS.filter((kind) => !listed.has(kindPage(kind))), "kinds missing from the README's list").toEqual([]);
  });
});

describe("the checker", () => {
  test("finds a missing file, a missing heading and an anchor of another page, not links in code", () => {
    // The fixture's page is named in pieces: a whole path and anchor here would read, to
    // stands-alone.test.ts, as a citation of a page of this repository.
    const page = ["docs", "page.md"].join("/");
    const dir = mkdtempSync(join(tmpdir(), "doc-links-"));
    try {
      mkdirSync(join(dir, "docs"));
      writeFileSync(join(dir, "docs", "page.md"), "# A page\n\n## The main job: `npm start`\n\nBack to the [README](../README.md#top).\n");
      writeFileSync(join(dir, "docs", "registry.md"), "---\ntitle: R\nlayout: package\n---\n\nSee [the page](./page/#a-page) and [no page](./none/).\n");
      writeFileSync(join(dir, "README.md"), [
        "# Top",
        `[ok](${page}#the-main-job-npm-start), [ok too](#top), [a folder](docs), [out](https://example.com/x.md#y)`,
        `[gone](docs/nope.md) and [no heading](${page}#the-main-job)`,
        "[self](#nowhere) `[in code](docs/nope.md)`",
        "```md",
        "[in a fence](docs/nope.md)",
        "```",
        "",
      ].join("\n"));
      expect(brokenLinks(dir, ["README.md", "docs/page.md", "docs/registry.md"])).toEqual([
        "README.md:3: docs/nope.md: no such file (docs/nope.md)",
        `README.md:3: ${page}#the-main-job: no heading #the-main-job in ${page}`,
        "README.md:4: #nowhere: no heading #nowhere in README.md",
        "docs/registry.md:6: ./none/: no such file (docs/none.md)",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("computes anchors as GitHub does", () => {
    expect([...anchors("# The main job: `npm start`\n## E2B's own test suites\n## A\n## A\n### [Linked](x.md) <b>bold</b>")]).toEqual([
      "the-main-job-npm-start",
      "e2bs-own-test-suites",
      "a",
      "a-1",
      "linked-bold",
    ]);
  });
});
