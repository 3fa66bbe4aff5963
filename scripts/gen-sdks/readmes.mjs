// The README of each generated SDK (called by scripts/gen-sdks.mjs after Pulumi's generators, whose own
// READMEs hold only the schema's description): how to install it, how the engine finds the plugin it
// needs, and the example that uses it. The SDKs are not published to a registry, so each is installed
// from a checkout of the repository; the paths below are those its examples use.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const PLUGIN = [
  "## The plugin",
  "",
  "The SDK calls the native provider plugin `pulumi-resource-sandbox`, shipped in the npm package `pulumi-sandbox`",
  "(`bin/`). Name its folder in your project's Pulumi.yaml:",
  "",
  "```yaml",
  "plugins:",
  "  providers:",
  "    - name: sandbox",
  "      path: <checkout or node_modules/pulumi-sandbox>/bin",
  "```",
  "",
  "or install it into Pulumi's plugin cache with `node <package>/scripts/install-plugin.mjs`. Its configuration",
  "(`sandbox:apiKey`, ...) is in the repository's docs/installation-configuration.md.",
];

const INSTALL = {
  nodejs: (schema) => [
    "## Install",
    "",
    "From a checkout of the repository, build it, then add the build to your project:",
    "",
    "```sh",
    "cd sdks/nodejs && npm install && npm run build && cp package.json bin/",
    "cd <your project> && npm install <checkout>/sdks/nodejs/bin",
    "```",
    "",
    "```ts",
    `import * as sandbox from "${schema.language.nodejs.packageName}";`,
    "```",
    "",
    "A TypeScript program can use the package `pulumi-sandbox` instead (`npm install pulumi-sandbox`): the same",
    "resources as dynamic resources, with no plugin. This SDK is for programs that want the plugin.",
  ],
  python: (schema) => [
    "## Install",
    "",
    "Add the SDK's folder of a checkout of the repository to your project's `requirements.txt`, with the",
    "`pulumi` the repository pins (as `examples/python-team/requirements.txt` does):",
    "",
    "```",
    "pulumi==3.259.0",
    "<checkout>/sdks/python",
    "```",
    "",
    "then `pip install -r requirements.txt` in the project's virtualenv, and:",
    "",
    "```python",
    `import ${schema.language.python.packageName} as sandbox`,
    "```",
  ],
  go: (schema) => [
    "## Install",
    "",
    "The SDK is the Go module `pulumi-sandbox/sdks/go`. Require it and point it at a checkout of the",
    "repository in your `go.mod` (as `examples/go-sandbox/go.mod` does), then `go mod tidy`:",
    "",
    "```",
    "require pulumi-sandbox/sdks/go v0.0.0",
    "replace pulumi-sandbox/sdks/go => <checkout>/sdks/go",
    "```",
    "",
    "```go",
    `import "${schema.language.go.importBasePath}"`,
    "```",
  ],
};

const EXAMPLE = { nodejs: "test/e2e/fixtures/plugin-sdk", python: "examples/python-team", go: "examples/go-sandbox" };

/** Writes `<sdks>/<language>/README.md` for each language of `schema.json`'s SDKs. */
export function writeReadmes(sdks, schema, languages) {
  for (const language of languages) {
    const lines = [
      `# ${schema.displayName}: the ${language === "nodejs" ? "Node.js" : language === "python" ? "Python" : "Go"} SDK`,
      "",
      schema.description,
      "",
      "Generated from the provider's `schema.json` by `npm run gen`; do not edit.",
      "",
      ...INSTALL[language](schema),
      "",
      ...PLUGIN,
      "",
      `A whole program using it: \`${EXAMPLE[language]}\` in the repository.`,
      "",
    ];
    writeFileSync(join(sdks, language, "README.md"), lines.join("\n"));
  }
}
