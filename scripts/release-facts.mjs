// What a release states about itself, read from every generated file that states it: the version (one,
// package.json's), the plugin's download address and the Go module path (both from package.json's
// `repository`, provider/schema/release.ts). `npm run gen` writes them all from package.json; a file not
// regenerated after a change of version says another one, and the plugin archives, the wheel, the Go
// module and the npm package of `npm run dist` would then disagree. `checkRelease` names every
// disagreement; scripts/dist.mjs refuses to build on one and test/unit/release-versions.test.ts fails on one.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const json = (root, path) => JSON.parse(readFileSync(join(root, path), "utf8"));
const text = (root, path) => readFileSync(join(root, path), "utf8");

/** The first capture of `pattern` in `path`, or `(not found)`. */
function match(root, path, pattern) {
  const m = pattern.exec(text(root, path));
  return m ? m[1] : "(not found)";
}

/**
 * Each place stating the version, the download address or the Go module, with what it says. The
 * plugin's own answer to GetPluginInfo is package.json's version read at run time (provider/runtime/
 * migrate.ts, inlined in the single-file plugin of scripts/dist.mjs): the tests ask the plugin itself.
 */
export function releaseFacts(root) {
  const pkg = json(root, "package.json");
  const schema = json(root, "schema.json");
  const goUtilities = "sdks/go/sandbox/internal/pulumiUtilities.go";
  const nodePackage = json(root, "sdks/nodejs/package.json");
  return {
    version: pkg.version,
    versions: [
      ["package.json", pkg.version],
      ["schema.json", schema.version],
      ["sdks/python/pyproject.toml", match(root, "sdks/python/pyproject.toml", /^\s*version = "([^"]+)"/m)],
      ["sdks/python/pulumi_sandbox/pulumi-plugin.json", json(root, "sdks/python/pulumi_sandbox/pulumi-plugin.json").version],
      ["sdks/go/sandbox/pulumi-plugin.json", json(root, "sdks/go/sandbox/pulumi-plugin.json").version],
      [goUtilities, match(root, goUtilities, /semver\.MustParse\("([^"]+)"\)/)],
      ["sdks/nodejs/package.json", nodePackage.version],
      ["sdks/nodejs/package.json pulumi.version", nodePackage.pulumi?.version],
    ],
    pluginDownloadURL: schema.pluginDownloadURL,
    servers: [
      ["schema.json pluginDownloadURL", schema.pluginDownloadURL],
      ["sdks/python/pulumi_sandbox/pulumi-plugin.json server", json(root, "sdks/python/pulumi_sandbox/pulumi-plugin.json").server],
      ["sdks/go/sandbox/pulumi-plugin.json server", json(root, "sdks/go/sandbox/pulumi-plugin.json").server],
      [goUtilities, match(root, goUtilities, /pulumi\.PluginDownloadURL\("([^"]+)"\)/)],
      ["sdks/nodejs/package.json pulumi.server", nodePackage.pulumi?.server],
    ],
    goModule: schema.language.go.modulePath,
    goModules: [
      ["schema.json language.go.modulePath", schema.language.go.modulePath],
      ["schema.json language.go.importBasePath, less /sandbox", String(schema.language.go.importBasePath).replace(/\/sandbox$/, "")],
      ["sdks/go/go.mod", match(root, "sdks/go/go.mod", /^module (\S+)$/m)],
    ],
  };
}

/** Every place that disagrees with package.json (version) or with schema.json (address, module), as lines. */
export function disagreements(facts) {
  const off = (list, want, what) => list.filter(([, value]) => value !== want).map(([place, value]) => `${place}: ${what} ${JSON.stringify(value)}, not ${JSON.stringify(want)}`);
  return [
    ...off(facts.versions, facts.version, "version"),
    ...off(facts.servers, facts.pluginDownloadURL, "download URL"),
    ...off(facts.goModules, facts.goModule, "Go module"),
  ];
}

/** The facts, once every place agrees; otherwise throws naming each disagreement and the fix. */
export function checkRelease(root) {
  const facts = releaseFacts(root);
  const off = disagreements(facts);
  if (off.length) throw new Error(`the release's files disagree; run \`npm run gen\`:\n  ${off.join("\n  ")}`);
  return facts;
}
