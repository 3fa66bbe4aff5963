/**
 * Dockerfile text → logical lines, for the emulator's v1 builds (emulator/dockerfile.ts), which take
 * the Dockerfile's text as the legacy build routes do: comments and blank lines dropped, `\`
 * continuations joined with one space. The current build system's conversion reads the text as
 * BuildKit does instead (./dockerfile-syntax.ts: heredocs, continuations kept as written, `# escape=`).
 */

/** One logical line: comments and blank lines dropped, `\` continuations joined. */
export interface DockerfileLine {
  /** The instruction's whole text, trimmed. */
  text: string;
  /** 1-based line where it starts. */
  line: number;
}

/**
 * Splits a Dockerfile into logical lines.
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
