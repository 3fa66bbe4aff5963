/**
 * The `language` section of schema.json: what Pulumi's code generators need to write the SDKs in
 * sdks/ (scripts/gen-sdks.mjs). Every SDK takes its version from the schema (`respectSchemaVersion`),
 * so it is the package's own, not a placeholder to fill at publish time. The names are this
 * repository's until it has a published home: the Go path is a local module path (`replace` it).
 */
export const LANGUAGES = {
  nodejs: { packageName: "@pulumi-sandbox/sdk", respectSchemaVersion: true },
  python: { packageName: "pulumi_sandbox", respectSchemaVersion: true, pyproject: { enabled: true } },
  go: { importBasePath: "pulumi-sandbox/sdks/go/sandbox", respectSchemaVersion: true },
} as const;
