// The plugin in one JS file, for `npm run dist` (../dist.mjs).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { PLUGIN, require, root } from "./common.mjs";
import { walk } from "./formats.mjs";

/** The packages `likePulumi` loads (provider/runtime/like-pulumi.ts), from the compiled calls in dist/. */
function likePulumiIds(distDir) {
  const ids = new Set();
  for (const file of walk(distDir)) {
    if (!file.endsWith(".js")) continue;
    for (const m of readFileSync(file, "utf8").matchAll(/likePulumi\)?\(\s*"([^"]+)"\s*\)/g)) ids.add(m[1]);
  }
  return [...ids].sort();
}

/**
 * esbuild's bundle of bin/pulumi-resource-sandbox. Two modules find files through the package's folder,
 * which one file does not have, and are put in their place: the schema's text (provider/plugin/
 * schema-text.ts) becomes the text of schema.json; `likePulumi` (provider/runtime/like-pulumi.ts, a
 * package as @pulumi/pulumi loads it) becomes plain requires resolved from @pulumi/pulumi's folder, so
 * the bundle holds @pulumi/pulumi's copy, and only one. Returns the bundle and the notices of the
 * packages in it.
 */
export async function bundle(facts) {
  const esbuild = require("esbuild");
  const dist = join(root, "dist");
  const pulumiDir = dirname(require.resolve("@pulumi/pulumi/package.json"));
  const schema = readFileSync(join(root, "schema.json"), "utf8");
  const ids = likePulumiIds(dist);
  const replaced = new Set();
  const launcher = readFileSync(join(root, "bin", PLUGIN), "utf8").replace(/^#!.*\n/, "");
  const result = await esbuild.build({
    stdin: { contents: launcher, resolveDir: join(root, "bin"), sourcefile: `bin/${PLUGIN}`, loader: "js" },
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node22",
    minify: true,
    keepNames: true,
    legalComments: "none",
    metafile: true,
    write: false,
    logLevel: "silent",
    // A require.resolve left in the bundle would look for a package folder at run time: fail the build instead.
    logOverride: { "require-resolve-not-external": "error" },
    banner: { js: `// ${PLUGIN} v${facts.version}, the native provider plugin of pulumi-sandbox in one file (scripts/dist.mjs); the licenses of what it holds are in THIRD-PARTY-NOTICES.` },
    plugins: [
      {
        name: "single-file",
        setup(build) {
          build.onLoad({ filter: /[\\/]dist[\\/]provider[\\/]plugin[\\/]schema-text\.js$/ }, () => {
            replaced.add("schema-text");
            return { contents: `"use strict";\nexports.schemaText = () => ${JSON.stringify(schema)};\n`, loader: "js" };
          });
          build.onLoad({ filter: /[\\/]dist[\\/]provider[\\/]runtime[\\/]like-pulumi\.js$/ }, () => {
            replaced.add("like-pulumi");
            const table = ids.map((id) => `  ${JSON.stringify(id)}: () => require(${JSON.stringify(id)}),`).join("\n");
            return {
              contents: `"use strict";\nconst modules = {\n${table}\n};\nexports.likePulumi = (id) => {\n  const load = modules[id];\n  if (!load) throw new Error("likePulumi(" + JSON.stringify(id) + "): not one of the packages the single-file plugin was built with");\n  return load();\n};\n`,
              loader: "js",
              resolveDir: pulumiDir,
            };
          });
        },
      },
    ],
  });
  for (const name of ["schema-text", "like-pulumi"]) if (!replaced.has(name)) throw new Error(`bundle: dist/ has no ${name}.js to put in place; run npm run build`);
  const externals = Object.values(result.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external && !i.path.startsWith("node:") && !isBuiltin(i.path)).map((i) => i.path));
  if (externals.length) throw new Error(`bundle: left outside the file: ${[...new Set(externals)].join(", ")}`);
  return { code: Buffer.from(result.outputFiles[0].contents), notices: notices(Object.keys(result.metafile.inputs), facts) };
}

function isBuiltin(id) {
  return require("node:module").builtinModules.includes(id);
}

/** The license of every package the bundle holds (each one's LICENSE file, else what its package.json says). */
function notices(inputs, facts) {
  const dirs = new Set();
  for (const input of inputs) {
    const path = input.split("/").join(sep);
    const at = path.lastIndexOf(`node_modules${sep}`);
    if (at === -1) continue;
    const rest = path.slice(at + "node_modules".length + 1).split(sep);
    dirs.add(join(root, path.slice(0, at), "node_modules", ...(rest[0].startsWith("@") ? rest.slice(0, 2) : rest.slice(0, 1))));
  }
  const sections = [...dirs].map((dir) => {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const files = readdirSync(dir).filter((f) => /^(licen[cs]e|copying|notice)/i.test(f)).sort();
    const text = files.map((f) => readFileSync(join(dir, f), "utf8").trim()).join("\n\n");
    return { name: `${pkg.name}@${pkg.version}`, body: `${pkg.name}@${pkg.version} (${pkg.license ?? "license not stated"})\n\n${text || `No license file in the package; its package.json says: ${pkg.license}.`}` };
  });
  sections.sort((a, b) => (a.name < b.name ? -1 : 1));
  const head =
    `${PLUGIN} v${facts.version} (pulumi-sandbox, Apache-2.0) holds, in ${PLUGIN}.js, the code of the packages below, ` +
    "each under its own license. Node.js, beside it, is under NODE-LICENSE.";
  return [head, ...sections.map((s) => s.body)].join(`\n\n${"-".repeat(78)}\n\n`) + "\n";
}
