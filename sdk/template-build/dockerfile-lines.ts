/**
 * Dockerfile text → instructions: comments and blank lines dropped, `\` continuations joined, each
 * instruction keeping the line it starts on, its leading `--flag[=value]` options and its arguments
 * (the JSON form read as a list, the shell form kept as text and split on unquoted whitespace).
 */

/** One instruction as written. */
export interface DockerInstruction {
  /** Upper-cased: FROM, RUN, COPY, … */
  keyword: string;
  /** 1-based line where the instruction starts. */
  line: number;
  /** `--chown=user` → `{chown: "user"}`; a flag with no value maps to "". */
  flags: Record<string, string>;
  /** Everything after the flags, continuations joined. */
  text: string;
  /** The JSON-array form's items, when the text is one. */
  json?: string[];
}

/** One logical line: comments and blank lines dropped, `\` continuations joined. */
export interface DockerfileLine {
  /** The instruction's whole text, trimmed. */
  text: string;
  /** 1-based line where it starts. */
  line: number;
}

/**
 * Splits a Dockerfile into logical lines. The one splitter: the emulator's builds read the same
 * lines (emulator/dockerfile.ts), so what a continuation or a comment means cannot drift between them.
 */
export function dockerfileLines(dockerfile: string): DockerfileLine[] {
  const out: DockerfileLine[] = [];
  let pending: DockerfileLine | undefined;
  dockerfile.split(/\r?\n/).forEach((raw, i) => {
    const trimmed = raw.trim();
    if (trimmed.startsWith("#") || (trimmed === "" && !pending)) return;
    const continued = trimmed.endsWith("\\");
    const piece = continued ? trimmed.slice(0, -1).trim() : trimmed;
    pending = pending ? { text: `${pending.text} ${piece}`.trim(), line: pending.line } : { text: piece, line: i + 1 };
    if (continued) return;
    out.push(pending);
    pending = undefined;
  });
  if (pending && pending.text !== "") out.push(pending);
  return out;
}

/** Splits a Dockerfile into instructions. */
export function readInstructions(dockerfile: string): DockerInstruction[] {
  return dockerfileLines(dockerfile).map(({ text, line }) => toInstruction(text, line));
}

function toInstruction(whole: string, line: number): DockerInstruction {
  const match = /^(\S+)\s*(.*)$/s.exec(whole);
  const keyword = (match?.[1] ?? "").toUpperCase();
  let rest = (match?.[2] ?? "").trim();
  const flags: Record<string, string> = {};
  for (let flag = /^--([a-zA-Z-]+)(?:=(\S*))?\s*/.exec(rest); flag; flag = /^--([a-zA-Z-]+)(?:=(\S*))?\s*/.exec(rest)) {
    flags[flag[1]!] = flag[2] ?? "";
    rest = rest.slice(flag[0].length);
  }
  const json = jsonForm(rest);
  return { keyword, line, flags, text: rest, ...(json ? { json } : {}) };
}

function jsonForm(text: string): string[] | undefined {
  if (!text.startsWith("[")) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) && value.every((v) => typeof v === "string") ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Shell-form words: split on unquoted whitespace, quotes removed, `\x` kept as `x`. */
export function words(text: string): string[] {
  const out: string[] = [];
  let word = "";
  let quote: string | undefined;
  let started = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < text.length) word += text[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      started = true;
    } else if (c === "\\" && i + 1 < text.length) {
      word += text[++i];
      started = true;
    } else if (/\s/.test(c)) {
      if (started) out.push(word);
      word = "";
      started = false;
    } else {
      word += c;
      started = true;
    }
  }
  if (started) out.push(word);
  return out;
}
