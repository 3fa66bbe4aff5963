/**
 * A Dockerfile read and converted as e2b 2.63 reads and converts one (sdk/template-build/dockerfile-syntax.ts,
 * dockerfile-steps.ts): BuildKit's syntax (heredocs, continuations, `# escape=`), quotes and escapes
 * resolved as the shell would, ARG and ENV values for `--chmod` and before FROM, COPY --chown/--chmod,
 * the flags and instructions the SDK ignores (with a warning) or drops. The expected steps are those
 * e2b 2.63's `Template().from_dockerfile(...)` serialises for the same text (checked against that
 * SDK itself in test/sdk/template-build-sdk-parity.test.ts).
 */
import { describe, expect, test } from "vitest";
import { dockerfileToSteps, DockerfileError } from "../../sdk/template-build";
import { parseDockerfileAst } from "../../sdk/template-build/dockerfile-syntax";
import { planBuild } from "../../provider/kinds/template/steps";

/** The steps a Dockerfile's own lines make, without the USER/WORKDIR defaults around them. */
function stepsOf(dockerfile: string): [string, ...string[]][] {
  const { steps, lines } = dockerfileToSteps(dockerfile);
  return steps.filter((_, i) => lines[i] !== undefined).map((s) => [s.type, ...(s.args ?? [])]);
}

function problemsOf(dockerfile: string): string[] {
  try {
    dockerfileToSteps(dockerfile);
  } catch (err) {
    expect(err).toBeInstanceOf(DockerfileError);
    return (err as DockerfileError).message.split("\n");
  }
  throw new Error("the Dockerfile converted");
}

const warningsOf = (dockerfile: string) => dockerfileToSteps(dockerfile).warnings.map((w) => `${w.line} ${w.instruction}: ${w.message}`);

describe("heredocs", () => {
  test("a lone `RUN <<EOF` runs its body as the script, comments and trailing backslashes included", () => {
    expect(stepsOf("FROM a\nRUN <<EOF\necho hi\n# not a comment\necho $HOME \\\nEOF\nRUN echo after\n")).toEqual([
      ["RUN", "echo hi\n# not a comment\necho $HOME \\\n"],
      ["RUN", "echo after"],
    ]);
  });

  test("`<<-` strips leading tabs, from the body and the terminator", () => {
    expect(stepsOf("FROM a\nRUN <<-EOF\n\techo hi\n\t\tnested\n\tEOF\n")).toEqual([["RUN", "echo hi\nnested\n"]]);
  });

  test("a shebang script is written to a file and executed", () => {
    expect(stepsOf("FROM a\nRUN <<EOF\n#!/usr/bin/env python3\nprint('hi')\nEOF\n")).toEqual([
      ["RUN", "cat <<'E2B_HEREDOC_EOF' >/tmp/EOF\n#!/usr/bin/env python3\nprint('hi')\nE2B_HEREDOC_EOF\nchmod +x /tmp/EOF && /tmp/EOF\nE2B_EXIT=$?; rm -f /tmp/EOF; exit $E2B_EXIT"],
    ]);
  });

  test("heredocs inside a longer command are put back for the shell, several in order", () => {
    expect(stepsOf("FROM a\nRUN cat <<EOF > /etc/x.conf\nkey=$VAL\nEOF\n")).toEqual([["RUN", "cat <<EOF > /etc/x.conf\nkey=$VAL\nEOF"]]);
    expect(stepsOf("FROM a\nRUN cat <<A > /a && cat <<B > /b\naaa\nA\nbbb\nB\nENV X=1\n")).toEqual([
      ["RUN", "cat <<A > /a && cat <<B > /b\naaa\nA\nbbb\nB"],
      ["ENV", "X", "1"],
    ]);
  });

  test("`COPY <<EOF` writes the file as root: variables expanded by the shell, `$(…)` and backticks literal", () => {
    expect(stepsOf("FROM a\nCOPY <<EOF /etc/app.conf\nport=${PORT:-80}\nliteral=\\$x `cmd` $(date)\nEOF\n")).toEqual([
      [
        "RUN",
        'E2B_HEREDOC_DEST=/etc/app.conf\nif [ -d "$E2B_HEREDOC_DEST" ]; then E2B_HEREDOC_DEST="$E2B_HEREDOC_DEST"/EOF; fi\n' +
          'mkdir -p "$(dirname "$E2B_HEREDOC_DEST")" && cat <<E2B_HEREDOC_EOF >"$E2B_HEREDOC_DEST"\nport=${PORT:-80}\nliteral=\\$x \\`cmd\\` \\$(date)\nE2B_HEREDOC_EOF',
        "root",
      ],
    ]);
  });

  test("a quoted terminator keeps the body as written; a directory destination gets a file named after the heredoc, with --chown/--chmod", () => {
    expect(stepsOf('FROM a\nCOPY <<"EOF" /x\n$HOME stays\nEOF\n')[0]?.[1]).toContain("cat <<'E2B_HEREDOC_EOF' >\"$E2B_HEREDOC_DEST\"\n$HOME stays\nE2B_HEREDOC_EOF");
    expect(stepsOf("FROM a\nCOPY --chown=app:app --chmod=644 <<conf.txt /etc/\nhello\nconf.txt\n")).toEqual([
      [
        "RUN",
        'E2B_HEREDOC_DEST=/etc/conf.txt\nmkdir -p "$(dirname "$E2B_HEREDOC_DEST")" && cat <<E2B_HEREDOC_conf_txt >"$E2B_HEREDOC_DEST"\nhello\nE2B_HEREDOC_conf_txt\n' +
          'chown app:app "$E2B_HEREDOC_DEST"\nchmod 644 "$E2B_HEREDOC_DEST"',
        "root",
      ],
    ]);
  });

  test("an unterminated heredoc, or one as a COPY destination, is refused on its line", () => {
    expect(problemsOf("FROM a\nRUN <<EOF\necho\n")).toEqual(["Dockerfile line 2: RUN: unterminated heredoc"]);
    expect(problemsOf("FROM a\nCOPY a.txt <<EOF\nx\nEOF\n")).toEqual(["Dockerfile line 2: COPY: cannot accept a heredoc as a destination"]);
  });

  test("the reader keeps each heredoc's name, body, and whether it expands", () => {
    const [, run] = parseDockerfileAst("FROM a\nRUN <<-'X' cat\n\tbody\n\tX\n").instructions;
    expect(run).toMatchObject({ name: "RUN", args: ["<<-'X' cat"], startLine: 2, endLine: 4 });
    expect(run?.heredocs).toEqual([{ name: "X", content: "\tbody\n", chomp: true, expand: false, fileDescriptor: 0 }]);
  });
});

describe("continuations, comments and directives, as BuildKit joins them", () => {
  test("the escape token is dropped and the whitespace around it kept; comment lines inside are skipped", () => {
    expect(stepsOf("FROM a\nRUN apt-get update && \\\n    apt-get install -y curl\n")).toEqual([["RUN", "apt-get update &&     apt-get install -y curl"]]);
    expect(stepsOf("FROM a\nRUN echo a \\\n# comment\n  b\n")).toEqual([["RUN", "echo a   b"]]);
  });

  test("an empty line inside a continuation is skipped, with a warning", () => {
    const text = "FROM a\nRUN echo a \\\n\n  b\nRUN x\n";
    expect(stepsOf(text)).toEqual([["RUN", "echo a   b"], ["RUN", "x"]]);
    expect(warningsOf(text)).toEqual(["4 RUN: has an empty continuation line, which is skipped (BuildKit warns that it will become an error)"]);
  });

  test("an escaped backslash ends the line; `# escape=`` ` makes the backtick the escape token", () => {
    expect(stepsOf("FROM a\nRUN echo a\\\\\nRUN echo b\n")).toEqual([["RUN", "echo a\\\\"], ["RUN", "echo b"]]);
    expect(stepsOf("# escape=`\nFROM a\nRUN echo a `\n  b\nRUN dir C:\\path\n")).toEqual([["RUN", "echo a   b"], ["RUN", "dir C:\\path"]]);
  });

  test("CRLF line ends and a BOM read as plain lines", () => {
    expect(stepsOf("\ufeffFROM a\r\nRUN echo a \\\r\n  b\r\nENV X=1\r\n")).toEqual([["RUN", "echo a   b"], ["ENV", "X", "1"]]);
  });
});

describe("ARG and ENV", () => {
  test("ARG and ENV become ENV steps; `$VAR` is kept for the build's shell, quotes and escapes are resolved", () => {
    expect(stepsOf('FROM a\nARG A B=2\nENV C=1 C=2 D="x y"\nENV LEGACY some value\nENV E=${B}-x F=\\$G\nRUN echo $B\n')).toEqual([
      ["ENV", "A", "", "B", "2"],
      ["ENV", "C", "2", "D", "x y"],
      ["ENV", "LEGACY", "some value"],
      ["ENV", "E", "${B}-x", "F", "$G"],
      ["RUN", "echo $B"],
    ]);
  });

  test("--chmod is resolved from the ARG and ENV values before it", () => {
    expect(stepsOf("FROM a\nARG MODE=0755\nENV OTHER=${MODE}\nCOPY --chmod=$OTHER a /b\nCOPY --chmod=${MISSING:-640} a /c\n")).toEqual([
      ["ENV", "MODE", "0755"],
      ["ENV", "OTHER", "${MODE}"],
      ["COPY", "a", "/b", "", "0755"],
      ["COPY", "a", "/c", "", "0640"],
    ]);
    expect(problemsOf("FROM a\nARG MODE=abc\nCOPY --chmod=$MODE a /b\n")).toEqual([
      'Dockerfile line 3: COPY: invalid chmod value "$MODE" (resolves to "abc"), expected an octal mode such as 0755',
    ]);
  });

  test("ARGs before FROM are substituted in it (BuildKit's rule), and still become ENV steps as the SDK makes them", () => {
    const build = dockerfileToSteps("ARG BASE=python\nARG TAG=3.12\nFROM ${BASE}:${TAG}-slim AS app\nRUN x\n");
    expect(build.fromImage).toBe("python:3.12-slim");
    expect(build.steps.slice(2, 4)).toEqual([{ type: "ENV", args: ["BASE", "python"] }, { type: "ENV", args: ["TAG", "3.12"] }]);
    expect(build.warnings).toEqual([]);
    const unset = dockerfileToSteps("ARG TAG\nFROM python:${TAG:-3.11}\n");
    expect(unset.fromImage).toBe("python:3.11");
    expect(unset.warnings.map((w) => w.message)).toEqual([
      "TAG has no value in 'python:${TAG:-3.11}' (no ARG before FROM gives it a default, and the service takes no build arguments): the image is python:3.11",
    ]);
    expect(problemsOf("ARG IMAGE\nFROM $IMAGE\n")).toEqual(["Dockerfile line 2: FROM: names no image ('$IMAGE' with IMAGE unset)"]);
    expect(problemsOf("ENV X=1\nFROM a\n")).toEqual(["Dockerfile line 1: ENV: must be preceded by a FROM instruction"]);
  });
});

describe("COPY and ADD", () => {
  test("--chown and --chmod (quoted, from variables, 3 or 4 octal digits) are honoured on every source; quoted sources are one word", () => {
    expect(stepsOf('FROM a\nARG U=app\nCOPY --chown="$U:$U" --chmod=0640 "my file.txt" \'b c\' my\\ d /dest/\nCOPY ["x y", "/j/"]\n')).toEqual([
      ["ENV", "U", "app"],
      ["COPY", "my file.txt", "/dest/", "$U:$U", "0640"],
      ["COPY", "b c", "/dest/", "$U:$U", "0640"],
      ["COPY", "my d", "/dest/", "$U:$U", "0640"],
      ["COPY", "x y", "/j/", "", ""],
    ]);
    expect(problemsOf("FROM a\nCOPY --chmod=u+x a /b\nCOPY --chmod=04755 a /c\n")).toEqual([
      'Dockerfile line 2: COPY: invalid chmod value "u+x", expected an octal mode such as 0755',
      'Dockerfile line 3: COPY: invalid chmod value "04755", expected an octal mode such as 0755',
    ]);
  });

  test("what the service cannot copy is refused: another stage, a URL, a path outside the context, bad flags", () => {
    expect(problemsOf("FROM a\nCOPY --from=build /x /y\nADD https://example.com/a.tgz /opt/\nCOPY ../up /x\nCOPY --chown=a --chown=b a /b\nCOPY --foo a /b\nCOPY --link=maybe a /b\nCOPY a\n")).toEqual([
      "Dockerfile line 2: COPY: --from copies from another stage; multi-stage Dockerfiles are not supported",
      "Dockerfile line 3: ADD: a URL source (https://example.com/a.tgz) cannot be uploaded; fetch it in a RUN step instead",
      "Dockerfile line 4: COPY: source '../up' is outside the build context",
      "Dockerfile line 5: COPY: duplicate flag specified: chown",
      "Dockerfile line 6: COPY: unknown flag: foo",
      "Dockerfile line 7: COPY: expecting boolean value for flag link, not: maybe",
      "Dockerfile line 8: COPY: requires at least two arguments",
    ]);
  });
});

describe("flags and instructions the SDK ignores", () => {
  test("RUN --mount/--network/--security/--device, COPY --link/--exclude/--parents, ADD --checksum/--keep-git-dir/--unpack, FROM --platform: warned, then built without", () => {
    const text = [
      "FROM --platform=linux/amd64 python:3",
      "RUN --mount=type=cache,target=/root/.cache --network=none pip install x",
      "RUN --security=insecure --device=/dev/fuse echo",
      "COPY --link --exclude=*.md --parents a/b /c/",
      "ADD --checksum=sha256:abc --keep-git-dir --unpack=true d /e",
    ].join("\n");
    expect(dockerfileToSteps(text).fromImage).toBe("python:3");
    expect(stepsOf(text)).toEqual([["RUN", "pip install x"], ["RUN", "echo"], ["COPY", "a/b", "/c/", "", ""], ["COPY", "d", "/e", "", ""]]);
    expect(warningsOf(text)).toEqual([
      "1 FROM: --platform is ignored (the service's builder does not support it: the image is pulled for the builder's platform)",
      "2 RUN: --mount is ignored (the service's builder does not support it: the command runs without the mount)",
      "2 RUN: --network is ignored (the service's builder does not support it: the command runs with the builder's network)",
      "3 RUN: --security is ignored (the service's builder does not support it: the command runs with the builder's default security)",
      "3 RUN: --device is ignored (the service's builder does not support it: the command runs without the device)",
      "4 COPY: --link is ignored (the service's builder does not support it: the files are copied as without it)",
      "4 COPY: --exclude is ignored (the service's builder does not support it: the files it names are copied too)",
      "4 COPY: --parents is ignored (the service's builder does not support it: the files are copied as without it)",
      "5 ADD: --checksum is ignored (the service's builder does not support it: the files are not checked)",
      "5 ADD: --keep-git-dir is ignored (the service's builder does not support it: the files are copied as without it)",
      "5 ADD: --unpack is ignored (the service's builder does not support it: the files are copied as without it)",
    ]);
  });

  test("EXPOSE, VOLUME, LABEL and MAINTAINER are dropped without a word; SHELL, HEALTHCHECK, STOPSIGNAL and ONBUILD with a warning", () => {
    const text = 'FROM a\nEXPOSE 80 443\nVOLUME ["/data"]\nLABEL a=b c="d e"\nMAINTAINER me\nSHELL ["/bin/bash", "-o", "pipefail", "-c"]\nHEALTHCHECK CMD curl -f x\nSTOPSIGNAL SIGTERM\nONBUILD RUN x\nRUN ok\n';
    expect(stepsOf(text)).toEqual([["RUN", "ok"]]);
    expect(warningsOf(text)).toEqual([
      "6 SHELL: is ignored (RUN commands run with `/bin/bash -l -c` whatever it names)",
      "7 HEALTHCHECK: is ignored (a sandbox has no health check)",
      "8 STOPSIGNAL: is ignored (a sandbox has no stop signal)",
      "9 ONBUILD: is ignored (a template's builds do not run it)",
    ]);
  });

  test("an unknown flag, or a flag on an instruction that takes none, is refused", () => {
    expect(problemsOf("FROM --foo=1 a\nRUN --bar echo\nUSER --x=1 u\nCMD --y echo\n")).toEqual([
      "Dockerfile line 1: FROM: unknown flag: foo",
      "Dockerfile line 2: RUN: unknown flag: bar",
      "Dockerfile line 3: USER: unknown flag: x",
      "Dockerfile line 4: CMD: unknown flag: y",
    ]);
  });
});

describe("RUN, WORKDIR, USER, CMD and ENTRYPOINT", () => {
  test("the exec form is quoted for the shell; WORKDIR takes the whole (unquoted) rest of its line", () => {
    expect(stepsOf('FROM a\nRUN ["sh", "-c", "echo \'hi\' && echo $HOME"]\nWORKDIR /my dir\nWORKDIR "/q dir"\nUSER 1000:1000\n')).toEqual([
      ["RUN", "sh -c 'echo '\"'\"'hi'\"'\"' && echo $HOME'"],
      ["WORKDIR", "/my dir"],
      ["WORKDIR", "/q dir"],
      ["USER", "1000:1000"],
    ]);
  });

  test("ENTRYPOINT and CMD combine as in Docker into the start command, with the 20 s wait", () => {
    const start = (text: string) => dockerfileToSteps(`FROM a\n${text}`).startCmd;
    expect(start('ENTRYPOINT ["python", "-m"]\nCMD ["app"]')).toBe("python -m app");
    expect(start('ENTRYPOINT ["tini", "--"]\nCMD node server.js')).toBe("tini -- /bin/sh -c 'node server.js'");
    expect(start('ENTRYPOINT exec node x\nCMD ["ignored"]')).toBe("exec node x");
    expect(start('CMD ["echo", "hi there", "it\'s"]')).toBe("echo 'hi there' 'it'\"'\"'s'");
    expect(start("CMD one\nCMD two")).toBe("two");
    expect(start("CMD []")).toBeUndefined();
    expect(dockerfileToSteps("FROM a\nCMD go").readyCmd).toBe("sleep 20");
  });
});

describe("what the provider sends and shows (planBuild)", () => {
  test("every step says force false, the body says force; a heredoc COPY's RUN shows its user; warnings are worded for the log", () => {
    const plan = planBuild({ dockerfile: "FROM a\nRUN --mount=type=cache,target=/c make\nCOPY <<EOF /home/user/x\nhi\nEOF\nEXPOSE 80\n" }, false);
    expect(plan.body.force).toBe(false);
    expect(plan.body.steps?.every((s) => s.force === false)).toBe(true);
    expect(plan.lines.slice(0, 4)).toEqual(["FROM a", "USER root", "WORKDIR /", "RUN make"]);
    expect(plan.lines[4]).toMatch(/^RUN \(as root\) E2B_HEREDOC_DEST=\/home\/user\/x\n/);
    expect(plan.warnings).toEqual(["Dockerfile line 2: RUN: --mount is ignored (the service's builder does not support it: the command runs without the mount)"]);
    expect(planBuild({ dockerfile: "FROM a\n", force: true }, false).body.force).toBe(true);
  });
});
