/**
 * An instruction's arguments as BuildKit's parser reads them, by keyword (moby/buildkit
 * `frontend/dockerfile/parser/line_parsers.go`; PyPI `e2b-dockerfile-utils` 0.1, `syntax.py`): the
 * shell form of RUN, CMD, ENTRYPOINT, SHELL, USER, WORKDIR and MAINTAINER as one string; COPY, ADD
 * and ARG as words with their quotes still in place; ENV and LABEL as `[key, value, "=" or ""]`
 * triples; the JSON (exec) form as its strings. Pure.
 */
import { isSpace } from "./shell-chars";
import { DockerfileSyntaxError } from "./dockerfile-syntax-error";
import { parseWords, trimLeadingWhitespace, WHITESPACE } from "./dockerfile-words";

/** The arguments, and whether they were in JSON form. */
export type ParsedArgs = [string[], boolean];
type LineParser = (rest: string, escapeToken: string) => ParsedArgs;

const parseString: LineParser = (rest) => [rest === "" ? [] : [rest], false];
const parseIgnore: LineParser = () => [[], false];
const parseStringsWhitespaceDelimited: LineParser = (rest) => [rest === "" ? [] : rest.split(WHITESPACE), false];

class NotJsonArray extends Error {}

function parseJson(rest: string): string[] {
  const text = trimLeadingWhitespace(rest);
  if (!text.startsWith("[")) throw new NotJsonArray();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new NotJsonArray();
  }
  if (!Array.isArray(parsed)) throw new NotJsonArray();
  if (!parsed.every((item) => typeof item === "string")) throw new DockerfileSyntaxError("Only strings are supported in JSON arrays");
  return parsed as string[];
}

/** The JSON form when the text is one, else `otherwise`. */
function jsonOr(otherwise: LineParser): LineParser {
  return (rest, escapeToken) => {
    try {
      return [parseJson(rest), true];
    } catch (err) {
      if (err instanceof NotJsonArray) return otherwise(rest, escapeToken);
      throw err;
    }
  };
}

const parseMaybeJson: LineParser = (rest, escapeToken) => (rest === "" ? [[], false] : jsonOr(() => [[rest], false])(rest, escapeToken));

/** `HEALTHCHECK [flags] <type> <command>`: the type (`CMD`/`NONE`), then the command in JSON or shell form. */
const parseHealthConfig: LineParser = (rest, escapeToken) => {
  let sep = 0;
  while (sep < rest.length && !isSpace(rest[sep]!)) sep++;
  let next = sep;
  while (next < rest.length && isSpace(rest[next]!)) next++;
  if (sep === 0) return [[], false];
  const [args, json] = parseMaybeJson(rest.slice(next), escapeToken);
  return [[rest.slice(0, sep), ...args], json];
};

const parseNameOrNameVal: LineParser = (rest, escapeToken) => [parseWords(rest, escapeToken), false];

function parseNameVal(key: string): LineParser {
  return (rest, escapeToken) => {
    const words = parseWords(rest, escapeToken);
    if (words.length === 0) return [[], false];
    // The old form: KEY name value.
    if (!words[0]!.includes("=")) {
      const match = WHITESPACE.exec(rest);
      if (!match) throw new DockerfileSyntaxError(`${key} must have two arguments`);
      return [[rest.slice(0, match.index), rest.slice(match.index + match[0].length), ""], false];
    }
    const args: string[] = [];
    for (const word of words) {
      const eq = word.indexOf("=");
      if (eq < 0) throw new DockerfileSyntaxError(`Syntax error - can't find = in "${word}". Must be of the form: name=value`);
      args.push(word.slice(0, eq), word.slice(eq + 1), "=");
    }
    return [args, false];
  };
}

const LINE_PARSERS: Readonly<Record<string, LineParser>> = {
  ADD: jsonOr(parseNameOrNameVal),
  ARG: parseNameOrNameVal,
  CMD: parseMaybeJson,
  // Words with their quotes (`COPY "my file.txt" /dest/`), where Docker splits on whitespace alone.
  COPY: jsonOr(parseNameOrNameVal),
  ENTRYPOINT: parseMaybeJson,
  ENV: parseNameVal("ENV"),
  EXPOSE: parseStringsWhitespaceDelimited,
  FROM: parseStringsWhitespaceDelimited,
  HEALTHCHECK: parseHealthConfig,
  LABEL: parseNameVal("LABEL"),
  MAINTAINER: parseString,
  ONBUILD: parseIgnore,
  RUN: parseMaybeJson,
  SHELL: parseMaybeJson,
  STOPSIGNAL: parseString,
  USER: parseString,
  VOLUME: jsonOr(parseStringsWhitespaceDelimited),
  WORKDIR: parseString,
};

/**
 * An instruction's arguments as its keyword's line parser reads them, and whether they were in JSON
 * form; undefined for a keyword BuildKit does not know.
 *
 * @throws DockerfileSyntaxError for arguments the keyword does not take.
 */
export function parseArguments(name: string, rest: string, escapeToken: string): ParsedArgs | undefined {
  return Object.hasOwn(LINE_PARSERS, name) ? LINE_PARSERS[name]!(rest, escapeToken) : undefined;
}
