// The README of each generated SDK (called by scripts/gen-sdks.mjs after Pulumi's generators, whose own
// READMEs hold only the schema's description): how to install it, released or built locally
// (`npm run dist`), how the engine gets the plugin it needs, and the example that uses it. Versions,
// module path and download address are the schema's (from package.json: provider/schema/release.ts).
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const PLUGIN = (schema) => [
  "## The plugin",
  "",
  `The SDK calls the native provider plugin \`pulumi-resource-sandbox\` v${schema.version}. The engine downloads it by`,
  `itself from the release (the schema's \`pluginDownloadURL\`, \`${schema.pluginDownloadURL}\`): an archive per platform`,
  "holding the plugin and the Node.js it runs on, so the machine needs no Node.js. Offline, or for a local build",
  "(`npm run dist` in a checkout writes the archives into `release/`), install the archive of your platform:",
  "",
  "```sh",
  `pulumi plugin install resource sandbox ${schema.version} --file pulumi-resource-sandbox-v${schema.version}-linux-amd64.tar.gz`,
  "```",
  "",
  "Its configuration (`sandbox:apiKey`, ...) is in the repository's docs/installation-configuration.md.",
];

const INSTALL = {
  nodejs: (schema) => [
    "## Install",
    "",
    "This SDK is not published: build it from a checkout of the repository, then add the build to your project:",
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
    "A TypeScript program usually takes the package `pulumi-sandbox` instead (`npm install pulumi-sandbox`): the same",
    "resources as dynamic resources, with no plugin. This SDK is for programs that want the plugin.",
  ],
  python: (schema) => [
    "## Install",
    "",
    "A released version, from PyPI, in your project's virtualenv:",
    "",
    "```sh",
    `pip install ${schema.language.python.packageName}==${schema.version}`,
    "```",
    "",
    "A local build: `npm run dist` in a checkout writes the wheel into `release/`; pip takes it from there and",
    "the SDK's dependencies (`pulumi`, ...) from PyPI:",
    "",
    "```sh",
    `pip install --find-links <checkout>/release ${schema.language.python.packageName}==${schema.version}`,
    "```",
    "",
    "```python",
    `import ${schema.language.python.packageName} as sandbox`,
    "```",
  ],
  go: (schema) => [
    "## Install",
    "",
    `The SDK is the Go module \`${schema.language.go.modulePath}\`. A released version:`,
    "",
    "```sh",
    `go get ${schema.language.go.modulePath}@v${schema.version}`,
    "```",
    "",
    "A local build: `npm run dist` in a checkout writes the module into `release/goproxy`, in a module proxy's",
    "layout. Put it first in `GOPROXY`, and keep the checksum database out of it (it knows only published versions):",
    "",
    "```sh",
    `GOPROXY=file://<checkout>/release/goproxy,https://proxy.golang.org GONOSUMDB=${schema.language.go.modulePath} go get ${schema.language.go.modulePath}@v${schema.version}`,
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
      ...PLUGIN(schema),
      "",
      `A whole program using it: \`${EXAMPLE[language]}\` in the repository.`,
      "",
    ];
    writeFileSync(join(sdks, language, "README.md"), lines.join("\n"));
  }
}
