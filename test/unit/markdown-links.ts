/**
 * Links and anchors of Markdown pages, read as GitHub renders them: what test/unit/doc-links.test.ts and
 * test/unit/stands-alone.test.ts check. A heading's anchor is GitHub's: its text (links reduced to their
 * text, code marks and HTML tags dropped) in lower case, punctuation dropped, each space a hyphen, and
 * `-1`, `-2`... for a repeat. Code (fenced blocks, inline spans) holds no links. Setext headings are not
 * read: no page uses them, and a page's front matter closes with a `---` line that would read as one.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, extname, join, relative } from "node:path";

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The lines of a Markdown text outside code fences, with their line numbers (from 1). */
function prose(markdown: string): { line: string; number: number }[] {
  const out: { line: string; number: number }[] = [];
  let fenced = false;
  markdown.split("\n").forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced) out.push({ line, number: i + 1 });
  });
  return out;
}

/** The anchors of a Markdown text: its headings' (outside code fences) and its HTML `id`/`name` anchors. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { line } of prose(markdown)) {
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]!);
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = (heading[1] ?? "").replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/<[^>]+>/g, "").replace(/`/g, "");
    const base = slug(text);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

/** A link of a page: where it is and where it points. */
export interface Link {
  line: number;
  target: string;
}

/** The links of a Markdown text: inline links and images, reference definitions, HTML href/src; none in code. */
export function links(markdown: string): Link[] {
  return prose(markdown).flatMap(({ line, number }) => {
    const text = line.replace(/`[^`]*`/g, "``");
    const targets = [
      ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
      ...[...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g)].map((m) => m[1]!),
      ...[...text.matchAll(/\s(?:href|src)="([^"]+)"/g)].map((m) => m[1]!),
    ];
    return targets.map((target) => ({ line: number, target }));
  });
}

/** Whether a link leaves the repository (a URL with a scheme, or a protocol-relative one). */
function external(target: string): boolean {
  return /^[a-z][a-z\d+.-]*:/i.test(target) || target.startsWith("//");
}

/**
 * What is wrong with each relative link of `files` (paths under `root`), as `file:line: target: why`.
 * A path resolves from the page's folder (from `root` when it opens with `/`) to a file or folder of the
 * checkout; an `#anchor` into a Markdown file is one of its anchors. The Pulumi Registry's pages (front
 * matter with `layout: package`) link to each other as the registry serves them, `./<page>/`, which is
 * `<page>.md` beside them.
 */
export function brokenLinks(root: string, files: string[]): string[] {
  const texts = new Map<string, string>();
  const read = (path: string) => texts.get(path) ?? (texts.set(path, readFileSync(path, "utf8")), texts.get(path)!);
  return files.flatMap((file) => {
    const page = join(root, file);
    const frontMatter = /^---\n([\s\S]*?)\n---\n/.exec(read(page));
    const registry = frontMatter !== null && /^layout: package$/m.test(frontMatter[1]!);
    return links(read(page))
      .filter((link) => !external(link.target))
      .flatMap(({ line, target }) => {
        const [path = "", anchor] = target.split("#", 2) as [string, string | undefined];
        let resolved = path === "" ? page : path.startsWith("/") ? join(root, decodeURI(path)) : join(dirname(page), decodeURI(path));
        if (!existsSync(resolved) && registry && path.endsWith("/")) resolved = `${resolved.replace(/[\\/]+$/, "")}.md`;
        const where = `${file}:${line}: ${target}`;
        if (!existsSync(resolved)) return [`${where}: no such file (${relative(root, resolved)})`];
        if (anchor === undefined || extname(resolved) !== ".md") return [];
        return anchors(read(resolved)).has(decodeURIComponent(anchor)) ? [] : [`${where}: no heading #${anchor} in ${relative(root, resolved)}`];
      });
  });
}
