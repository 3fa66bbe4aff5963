/** A string single-quoted for bash, so a path or option passed into a generated script stays one word. */
export function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}
