// The Python and Go SDKs as a release publishes them, for `npm run dist` (../dist.mjs).
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { root, run } from "./common.mjs";
import { walk, zip } from "./formats.mjs";

/** The `build` frontend the script installs into its throwaway virtualenv. */
const PYTHON_BUILD = "1.6.1";

/** `python -m build` of sdks/python (a copy: setuptools writes build/ and *.egg-info beside the sources), in a throwaway virtualenv. */
export async function pythonDist(out, work, mtime) {
  const python = process.platform === "win32" ? "python" : "python3";
  const venv = join(work, "venv");
  await run(python, ["-m", "venv", venv]).catch((err) => {
    throw new Error(`python: \`${python} -m venv\` failed (Python >= 3.9 with venv is needed to build the wheel): ${err.stderr || err.message}`);
  });
  const vpy = join(venv, process.platform === "win32" ? join("Scripts", "python.exe") : join("bin", "python"));
  await run(vpy, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", `build==${PYTHON_BUILD}`]);
  const src = join(work, "python");
  cpSync(join(root, "sdks", "python"), src, { recursive: true });
  try {
    // sdist first, then the wheel built from the sdist: a file the sdist leaves out fails here.
    // SOURCE_DATE_EPOCH: the files' dates in the wheel, so the same sources give the same wheel (setuptools
    // dates the sdist's own files now, whatever it is told).
    await run(vpy, ["-m", "build", "--outdir", out, src], { maxBuffer: 64 << 20, env: { ...process.env, SOURCE_DATE_EPOCH: String(mtime) } });
  } catch (err) {
    throw new Error(`python -m build failed:\n${err.stdout}${err.stderr}`);
  }
}

/** A module path as a module proxy spells it: each capital letter is `!` and the letter in lower case. */
export const escapePath = (path) => path.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);

/** sdks/go as the module proxy protocol serves it: GOPROXY=file://<out>/goproxy finds it. */
export function goProxy(out, facts, mtime) {
  const sdk = join(root, "sdks", "go");
  const version = `v${facts.version}`;
  const files = [];
  for (const file of walk(sdk)) {
    const rel = relative(sdk, file).split(sep).join("/");
    if (rel !== "go.mod" && rel.endsWith("/go.mod")) throw new Error(`sdks/go/${rel}: a module inside the module (golang.org/x/mod/zip would leave its folder out)`);
    files.push({ name: `${facts.goModule}@${version}/${rel}`, data: readFileSync(file) });
  }
  const dir = join(out, "goproxy", escapePath(facts.goModule), "@v");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "list"), `${version}\n`);
  writeFileSync(join(dir, `${version}.info`), `${JSON.stringify({ Version: version, Time: new Date(mtime * 1000).toISOString().replace(/\.000Z$/, "Z") })}\n`);
  writeFileSync(join(dir, `${version}.mod`), readFileSync(join(sdk, "go.mod")));
  writeFileSync(join(dir, `${version}.zip`), zip(files, mtime));
  return join(dir, `${version}.zip`);
}
