/**
 * The `language` section of schema.json: what Pulumi's code generators need to write the SDKs in
 * sdks/ (scripts/gen-sdks.mjs). Every SDK takes its version from the schema (`respectSchemaVersion`),
 * so it is the package's own, not a placeholder to fill at publish time. The Go SDK is the module
 * `goModule` (./release.ts: from package.json's `repository`), its package `<goModule>/sandbox`.
 */
export function languages(goModule: string) {
  return {
    nodejs: { packageName: "@pulumi-sandbox/sdk", respectSchemaVersion: true },
    python: { packageName: "pulumi_sandbox", respectSchemaVersion: true, pyproject: { enabled: true } },
    go: { importBasePath: `${goModule}/sandbox`, modulePath: goModule, respectSchemaVersion: true },
  } as const;
}
