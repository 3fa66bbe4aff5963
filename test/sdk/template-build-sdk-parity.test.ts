/**
 * Parity with e2b's newest SDK, run side by side: PyPI `e2b` 2.63.0 (in a virtualenv made here, `pip
 * install e2b==2.63.0`; its Dockerfile reader is `e2b-dockerfile-utils`) and sdk/template-build, on the
 * same inputs:
 * - the files of a COPY step and their hash, over contexts with a `.dockerignore` (negations `!`,
 *   nested paths, `**`, directory patterns, comments, CRLF and a BOM) and symlinks, for file, directory,
 *   glob and `.` sources: the SDK's `get_all_files_in_path` and `calculate_files_hash` against
 *   listContextFiles and hashEntries;
 * - whole builds: a Dockerfile and its context through the SDK's `Template(file_context_path=…)
 *   .from_dockerfile(…)` and `Template.to_json` (the body its build sends) against the provider's
 *   planBuild: every step's type, args, force and filesHash, and fromImage, startCmd, readyCmd, force;
 * - Dockerfiles alone (heredocs, continuations, directives, ARG/ENV, flags, CMD/ENTRYPOINT, errors).
 * The official JS SDK (npm `e2b` 2.51.0) does not export its files-hash function; its own `Template.toJSON`
 * is checked where the two SDKs agree (a file, no `.dockerignore`), and where they do not (a
 * directory: 2.51 still hashes a directory's size, which 2.63 dropped).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Template } from "e2b";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { dockerfileToSteps, DockerfileError, filesHash, hashEntries, listContextFiles, readDockerignore } from "../../sdk/template-build";
import { planBuild, PlanError } from "../../provider/kinds/template/steps";

const E2B_VERSION = "2.63.0";
/** Kept between runs: making it takes a pip install. */
const VENV = join(tmpdir(), `pulumi-sandbox-e2b-${E2B_VERSION}-venv`);
const PYTHON = join(VENV, "bin", "python");

const HARNESS = `
import contextlib, io, json, os, sys
from e2b import Template
from e2b.template.utils import calculate_files_hash, get_all_files_in_path, read_dockerignore
out = []
for c in json.load(sys.stdin):
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            if c["kind"] == "files":
                ctx = c["context"]
                ignore = read_dockerignore(ctx)
                files = [os.path.relpath(f, ctx) for f in get_all_files_in_path(c["src"], ctx, ignore, True)]
                result = {"files": files, "hash": calculate_files_hash(c["src"], c["dest"], ctx, ignore, False, None)}
            else:
                t = Template(file_context_path=c.get("context") or os.getcwd()).from_dockerfile(c["dockerfile"])
                if c.get("context"):
                    result = {"body": json.loads(Template.to_json(t))}
                else:
                    tt = t._template
                    result = {"body": tt._serialize(tt._instructions)}
        out.append({"ok": True, **result, "printed": printed.getvalue().splitlines()})
    except Exception as e:
        out.append({"ok": False, "error": f"{type(e).__name__}: {e}", "printed": printed.getvalue().splitlines()})
json.dump(out, sys.stdout)
`;

type PyResult = { ok: true; files?: string[]; hash?: string; body?: Body; printed: string[] } | { ok: false; error: string; printed: string[] };
interface Body {
  steps: { type: string; args: string[]; force: boolean; filesHash?: string }[];
  force: boolean;
  fromImage?: string;
  startCmd?: string;
  readyCmd?: string;
}

let work: string;
let harness: string;

/** Runs the Python SDK on every case at once (one interpreter start). */
function python(cases: object[]): PyResult[] {
  const run = spawnSync(PYTHON, [harness], { input: JSON.stringify(cases), encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`the Python SDK harness failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as PyResult[];
}

function sdkReady(): boolean {
  if (!existsSync(PYTHON)) return false;
  const probe = spawnSync(PYTHON, ["-c", `import importlib.metadata as m; assert m.version("e2b") == "${E2B_VERSION}"`]);
  return probe.status === 0;
}

beforeAll(() => {
  if (!sdkReady()) {
    rmSync(VENV, { recursive: true, force: true });
    execFileSync("python3", ["-m", "venv", VENV], { stdio: "pipe" });
    execFileSync(join(VENV, "bin", "pip"), ["install", "--quiet", "--disable-pip-version-check", `e2b==${E2B_VERSION}`], { stdio: "pipe" });
  }
  work = mkdtempSync(join(tmpdir(), "sdk-parity-"));
  harness = join(work, "harness.py");
  writeFileSync(harness, HARNESS);
}, 180_000);
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A context: `files` by path (a path ending in `/` is an empty directory), `links` as [target, path]. */
function context(name: string, files: Record<string, string>, dockerignore?: string, links: [string, string][] = []): string {
  const root = join(work, name);
  mkdirSync(root, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    const at = join(root, path);
    if (path.endsWith("/")) {
      mkdirSync(at, { recursive: true });
      continue;
    }
    mkdirSync(dirname(at), { recursive: true });
    writeFileSync(at, content);
  }
  for (const [target, path] of links) symlinkSync(target, join(root, path));
  if (dockerignore !== undefined) writeFileSync(join(root, ".dockerignore"), dockerignore);
  return root;
}

const TREE: Record<string, string> = {
  "a.txt": "a",
  ".env": "SECRET=1",
  "README.md": "readme",
  "docs/guide.md": "guide",
  "docs/keep.md": "keep",
  "app/main.py": "print(1)\n",
  "app/util/helpers.py": "h",
  "app/util/deep/more.py": "m",
  "app/.cache/c": "c",
  "app/__pycache__/m.pyc": "p",
  "app/tests/test_a.py": "t",
  "node_modules/pkg/index.js": "i",
  "node_modules/keep/index.js": "k",
  "build/out.bin": "b",
  "empty/": "",
  "sp ace/f i.txt": "s",
  "é/ü.txt": "u",
};

/** `.dockerignore` files: negations, nested paths, `**`, directories, anchors, classes, comments, CRLF and BOM. */
const IGNORES: Record<string, string | undefined> = {
  none: undefined,
  simple: "node_modules\n*.md\n.env\n",
  negation: "*.md\n!README.md\nnode_modules\n!node_modules/keep\n**/__pycache__\n",
  nested: "# comment\napp/util\n!app/util/deep/more.py\napp/**/*.pyc\n/build\ndocs/*\n!docs/keep.md\n",
  globstar: "**/*.py\n!app/main.py\n**/.cache\n",
  dirs: "app/tests/\n./empty\nsp?ace\n[ab]*.txt\n",
  "all-but": "*\n!app\n!app/**\napp/tests\n",
  "crlf-bom": "\ufeffnode_modules\r\n  *.md  \r\n\r\n#x\r\n",
  self: ".dockerignore\n**/*.txt\n",
};

const SOURCES = [".", "app", "app/", "./app", "app/*", "**/*.py", "*", "**", "app/**", "docs", "node_modules", "*.md", "app/util",
  "empty", "sp ace", "é", "a.txt", "linkdir", "linkdir/*", "link.txt", "README.md", ".env", "build", "app/util/deep/more.py",
  "app/../docs", "[ab]*", "missing"];

describe("a COPY step's files and their hash, as e2b 2.63 lists and hashes them", () => {
  test("contexts with a .dockerignore (negations, nested paths, **), for every kind of source", () => {
    const cases = Object.entries(IGNORES).flatMap(([name, ignore]) => {
      const root = context(`files-${name}`, TREE, ignore, [["app", "linkdir"], ["a.txt", "link.txt"]]);
      chmodSync(join(root, "app", "main.py"), 0o755);
      return SOURCES.map((src) => ({ kind: "files", context: root, src, dest: "/dest/", name }));
    });
    const theirs = python(cases);
    let compared = 0;
    cases.forEach((c, i) => {
      const sdk = theirs[i]!;
      const entries = listContextFiles(c.src, c.context, readDockerignore(c.context));
      const label = `${c.name}: COPY ${c.src}`;
      if (!sdk.ok) {
        expect(sdk.error, label).toMatch(/^ValueError: No files found in /);
        expect(entries, label).toEqual([]);
        return;
      }
      expect(entries.map((e) => (e.path === "" ? "." : e.path)), label).toEqual(sdk.files);
      expect(hashEntries(c.src, c.dest, entries), label).toBe(sdk.hash);
      compared++;
    });
    // Most sources match something: the comparison is not of empty lists.
    expect(compared).toBeGreaterThan(cases.length * 0.7);
    // The rules at work: `!README.md` brings back a file `*.md` dropped; `node_modules` drops what is
    // under it (`!node_modules/keep` brings that back); `**/__pycache__` drops a nested directory.
    const negation = theirs[cases.findIndex((c) => c.name === "negation" && c.src === ".")];
    expect(negation).toMatchObject({ ok: true });
    const listed = (negation as { files: string[] }).files;
    expect(listed).toEqual(expect.arrayContaining(["README.md", "docs/guide.md", "node_modules/keep/index.js"]));
    expect(listed).not.toEqual(expect.arrayContaining(["node_modules/pkg/index.js"]));
    expect(listed.filter((f) => f.includes("__pycache__"))).toEqual([]);
  });
});

/** Dockerfiles alone: what the SDK's reader and converter make of each. */
const DOCKERFILES: Record<string, string> = {
  basic: 'FROM python:3.12 AS app\nARG VERSION\nENV A=1 B="two words"\nENV LEGACY some value\nRUN pip install \\\n    requests\nCOPY --chown=user:user --chmod=755 src/ lib.py /app/\nADD ["data.tar", "/data/"]\nEXPOSE 8080\nCMD ["python", "-m", "app"]\n',
  continuations: "FROM a\nRUN echo a \\   \n  && echo b\nRUN echo c \\\n# comment\n  d\nRUN echo e \\\n\n  f\nRUN echo g\\\\\nRUN echo h \\",
  escape: "# escape=`\nFROM a\nRUN echo a `\n  b\nRUN dir C:\\path\n",
  directives: "# syntax=docker/dockerfile:1\n# check=skip=all\nFROM a\nRUN x\n",
  crlf: "\ufeffFROM a\r\nRUN echo a \\\r\n  b\r\nENV X=1\r\n",
  "heredoc-run": "FROM a\nRUN <<EOF\necho hi\n# not a comment\necho $HOME \\\nEOF\nRUN <<-EOF\n\techo tab\n\tEOF\nRUN <<'EOF'\necho $HOME\nEOF\n",
  "heredoc-shebang": "FROM a\nRUN <<EOF\n#!/usr/bin/env python3\nprint('hi')\nEOF\n",
  "heredoc-commands": "FROM a\nRUN cat <<EOF > /etc/x.conf\nkey=$VAL\nEOF\nRUN cat <<A > /a && cat <<B > /b\naaa\nA\nbbb\nB\nRUN python3 <<EOF\nprint(1)\nEOF\nRUN cat << EOF\nx\nEOF\nRUN cat 3<<EOF\nx\nEOF\n",
  "heredoc-copy": "FROM a\nCOPY <<EOF /etc/app.conf\nport=${PORT:-80}\nhome=$HOME\nliteral=\\$x `cmd` $(date)\nEOF\nCOPY --chown=app:app --chmod=644 <<conf.txt /etc/\nhello\nconf.txt\nCOPY <<\"EOF\" /x\n$HOME stays\nEOF\nCOPY <<-EOF /y\n\tindented\n\tEOF\nADD <<EOF /z\nadded\nEOF\n",
  "heredoc-substitutions": "FROM a\nCOPY <<EOF /x\n${A#pre} ${B%%.*} ${C/a/b} ${D//x\\/y/z} ${E:+set}\nEOF\n",
  "arg-env": 'FROM a\nARG A B=2 C="3 4"\nARG D="$B"\nENV E=1 E=2 F=3\nENV G "quoted value"\nENV H=${A}-x I=\\$J\nENV K="a\\"b" L=\'s q\'\nRUN echo $B\n',
  "arg-chmod": "FROM a\nARG MODE=0755\nENV OTHER=${MODE}\nCOPY --chmod=$OTHER a /b\nCOPY --chmod=${MISSING:-640} a /c\n",
  "copy-forms": 'FROM a\nARG U=app\nCOPY --chown=$U:$U a /b\nCOPY --chown="my user" a /b\nCOPY "my file.txt" \'other file\' /dest/\nCOPY ["a b", "c", "/d/"]\nCOPY my\\ file /d/\nCOPY $U /d/\nCOPY --chmod=0644 a /e\n',
  "ignored-flags": "FROM --platform=linux/amd64 python:3\nRUN --mount=type=cache,target=/root/.cache --network=none pip install x\nRUN --security=insecure --device=x echo\nCOPY --link a /b\nCOPY --link=false a /c\nCOPY --exclude=*.md --parents a/b /c/\nADD --checksum=sha256:abc --keep-git-dir --unpack=true a /b\n",
  "ignored-instructions": 'FROM a\nEXPOSE 80 443\nVOLUME /data\nLABEL a=b c="d e"\nMAINTAINER me\nSTOPSIGNAL SIGTERM\nHEALTHCHECK CMD curl x\nSHELL ["/bin/bash", "-o", "pipefail", "-c"]\nONBUILD RUN x\n',
  "run-forms": 'FROM a\nRUN ["sh", "-c", "echo \'hi\' && echo $HOME"]\nRUN echo "a  b" \'c\'   d\nRUN -- --mount echo\nRUN ["echo", "<<EOF"]\nRUN [\n',
  "workdir-user": 'FROM a\nWORKDIR /my dir\nWORKDIR "/q dir"\nWORKDIR $HOME/x\nUSER 1000:1000\n',
  "entrypoint-json-cmd-json": 'FROM a\nENTRYPOINT ["python", "-m"]\nCMD ["app"]\n',
  "entrypoint-json-cmd-shell": 'FROM a\nENTRYPOINT ["tini", "--"]\nCMD node server.js\n',
  "entrypoint-shell": 'FROM a\nENTRYPOINT exec node x\nCMD ["ignored"]\n',
  "cmd-forms": 'FROM a\nCMD echo "hi" $HOME\nCMD ["echo", "hi there", "it\'s"]\n',
  "cmd-empty": "FROM a\nCMD []\n",
  case: "from a\nrun echo hi\ncopy a b\nenv X=1\n   WORKDIR /w\n",
  unicode: "FROM a\nRUN echo été ☃\nENV é=☃\nCOPY été.txt /x\n",
  tabs: "FROM\ta\nRUN\techo\tx\n",
  realistic: [
    "# syntax=docker/dockerfile:1.7",
    "FROM node:22-bookworm",
    'SHELL ["/bin/bash", "-o", "pipefail", "-c"]',
    "ENV DEBIAN_FRONTEND=noninteractive \\",
    "    PNPM_HOME=/pnpm \\",
    '    PATH="$PNPM_HOME:$PATH"',
    "RUN --mount=type=cache,target=/var/cache/apt \\",
    "    apt-get update && \\",
    "    apt-get install -y --no-install-recommends curl git \\",
    "    && rm -rf /var/lib/apt/lists/*",
    "WORKDIR /app",
    "COPY --chown=node:node package.json pnpm-lock.yaml ./",
    "RUN corepack enable && pnpm install --frozen-lockfile",
    "COPY --chown=node:node . .",
    "RUN <<EOF",
    "set -eux",
    "pnpm build",
    "EOF",
    "USER node",
    "EXPOSE 3000",
    "HEALTHCHECK --interval=30s CMD curl -f http://localhost:3000/ || exit 1",
    'ENTRYPOINT ["docker-entrypoint.sh"]',
    'CMD ["node", "dist/server.js"]',
  ].join("\n"),
  // Refused by both (the messages are each one's own; the line is the same).
  "err-unterminated": "FROM a\nRUN <<EOF\necho\n",
  "err-heredoc-dest": "FROM a\nCOPY a.txt <<EOF\nx\nEOF\n",
  "err-chmod": "FROM a\nARG MODE=abc\nCOPY --chmod=$MODE a /b\n",
  "err-from-stage": "FROM a\nCOPY --from=build /x /y\n",
  "err-flags": "FROM a\nCOPY --chown=a --chown=b a /b\n",
  "err-url": "FROM a\nADD https://example.com/a.tgz /opt/\n",
  "err-outside": "FROM a\nCOPY ../secret /x\n",
  "err-unknown": "FROM a\nRUNN echo\n",
  "err-multistage": "FROM a AS b\nFROM c\n",
  "err-no-from": "RUN echo\n",
  "err-before-from": "ENV X=1\nFROM a\n",
  "err-env": "FROM a\nENV A=1 B\n",
  "err-json": 'FROM a\nRUN ["a", 1]\n',
  "err-directive": "# escape=\\\n# escape=`\nFROM a\n",
};

describe("a Dockerfile's steps, as e2b 2.63 converts it", () => {
  test("heredocs, continuations, directives, ARG/ENV, COPY flags, ignored flags and instructions, CMD/ENTRYPOINT, and what both refuse", () => {
    const names = Object.keys(DOCKERFILES);
    const theirs = python(names.map((name) => ({ kind: "dockerfile", dockerfile: DOCKERFILES[name] })));
    names.forEach((name, i) => {
      const sdk = theirs[i]!;
      let ours: ReturnType<typeof dockerfileToSteps> | DockerfileError;
      try {
        ours = dockerfileToSteps(DOCKERFILES[name]!);
      } catch (err) {
        if (!(err instanceof DockerfileError)) throw err;
        ours = err;
      }
      if (!sdk.ok) {
        expect(ours, `${name}: the SDK refuses it (${sdk.error})`).toBeInstanceOf(DockerfileError);
        const line = /on line (\d+)/.exec(sdk.error)?.[1];
        if (line) expect((ours as DockerfileError).problems.map((p) => String(p.line)), name).toContain(line);
        return;
      }
      expect(ours, `${name}: ${ours instanceof Error ? ours.message : ""}`).not.toBeInstanceOf(Error);
      const build = ours as ReturnType<typeof dockerfileToSteps>;
      const body = sdk.body!;
      expect(build.steps.map((s) => [s.type, s.args]), name).toEqual(body.steps.map((s) => [s.type, s.args]));
      expect(body.steps.every((s) => s.force === false), name).toBe(true);
      expect(build.fromImage, name).toBe(body.fromImage);
      expect(build.startCmd, name).toBe(body.startCmd);
      expect(build.readyCmd, name).toBe(body.readyCmd);
      // What the SDK prints about what it ignored, we warn about, on the same lines.
      const printedLines = sdk.printed.flatMap((p) => /\(line (\d+)\)$/.exec(p)?.[1] ?? []).map(Number);
      expect(build.warnings.length, `${name}: ${sdk.printed.join("; ")}`).toBe(sdk.printed.length);
      for (const line of printedLines) expect(build.warnings.map((w) => w.line), name).toContain(line);
    });
  });

  test("where they differ on purpose: ARGs before FROM are substituted in it, as BuildKit does (the SDK sends `${TAG}` as written)", () => {
    const dockerfile = "ARG TAG=3.12\nFROM python:${TAG}\n";
    const [sdk] = python([{ kind: "dockerfile", dockerfile }]);
    expect(sdk).toMatchObject({ ok: true, body: { fromImage: "python:${TAG}" } });
    expect(dockerfileToSteps(dockerfile).fromImage).toBe("python:3.12");
    expect(dockerfileToSteps(dockerfile).steps).toEqual((sdk as { body: Body }).body.steps.map(({ type, args }) => ({ type, args })));
  });
});

describe("a whole build, as e2b 2.63 sends it", () => {
  test("a Dockerfile and its context (with a .dockerignore): the same start body, file hashes included", () => {
    const root = context("build", TREE, "node_modules\n!node_modules/keep\n*.md\n!README.md\n**/__pycache__\n");
    const dockerfile = [
      "FROM python:3.12",
      "WORKDIR /app",
      "COPY --chown=user:user . /app/",
      "COPY app /srv/app",
      "COPY --chmod=0600 README.md docs/* /docs/",
      "COPY app/**/*.py /py/",
      "ADD node_modules/keep /nm",
      "RUN --mount=type=cache,target=/c pip install \\",
      "    -r requirements.txt",
      "COPY <<EOF /app/settings.toml",
      "mode = 'prod'",
      "EOF",
      'CMD ["python", "-m", "app"]',
    ].join("\n");
    const [sdk] = python([{ kind: "dockerfile", dockerfile, context: root }]);
    expect(sdk, JSON.stringify(sdk)).toMatchObject({ ok: true });
    const body = (sdk as { body: Body }).body;
    const plan = planBuild({ dockerfile, context: root });
    expect(plan.body).toEqual({
      fromImage: body.fromImage,
      force: body.force,
      steps: body.steps.map(({ type, args, force, filesHash: hash }) => ({ type, args, force, ...(hash ? { filesHash: hash } : {}) })),
      startCmd: body.startCmd,
      readyCmd: body.readyCmd,
    });
    expect(plan.body.steps?.filter((s) => s.filesHash).length).toBe(6);
    expect(plan.warnings).toEqual(["Dockerfile line 8: RUN: --mount is ignored (the service's builder does not support it: the command runs without the mount)"]);
  });

  test("a .dockerignore pattern the SDK refuses fails the plan on `context`", () => {
    const root = context("bad-ignore", { "a.txt": "a" }, "[\n");
    const [sdk] = python([{ kind: "files", context: root, src: "a.txt", dest: "/x" }]);
    expect(sdk).toMatchObject({ ok: false, error: "TemplateException: Invalid ignore pattern '[': syntax error in pattern" });
    let failed: PlanError | undefined;
    try {
      planBuild({ dockerfile: "FROM a\nCOPY a.txt /x\n", context: root });
    } catch (err) {
      failed = err as PlanError;
    }
    expect(failed?.problems).toEqual([{ path: "context", reason: `${root}/.dockerignore: Invalid ignore pattern '[': syntax error in pattern` }]);
  });
});

describe("the official JS SDK (npm e2b 2.51.0), which does not export its files hash", () => {
  test("agrees on a file with no .dockerignore; on a directory it still hashes the directory's size, which 2.63 dropped", async () => {
    const root = context("js", { "notes.md": "# notes\n", "app/hello.txt": "hello\n" });
    const hashOf = async (src: string, dest: string) => {
      const json = JSON.parse(await Template.toJSON(Template({ fileContextPath: root }).fromImage("e2bdev/base").copy(src, dest), true)) as Body;
      return json.steps.find((s) => s.type === "COPY")?.filesHash;
    };
    expect(await hashOf("notes.md", "/docs/")).toBe(filesHash("notes.md", "/docs/", root));
    const [sdk] = python([{ kind: "files", context: root, src: "app", dest: "/app" }]);
    expect(sdk).toMatchObject({ ok: true, hash: filesHash("app", "/app", root) });
    expect(await hashOf("app", "/app")).not.toBe(filesHash("app", "/app", root));
  });
});
