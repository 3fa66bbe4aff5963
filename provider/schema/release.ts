/**
 * Where a release of the package is published, from ONE setting: package.json's `repository`, a GitHub
 * repository. From it come schema.json's `repository` and `pluginDownloadURL` (so the engine downloads
 * the plugin archive of a release by itself, and the SDKs say where: Python's pulumi-plugin.json
 * `server`, Go's `PluginDownloadURL` option, the Node SDK's package.json), and the Go SDK's module path
 * (sdks/go/go.mod, the import paths of its packages). `npm run gen` writes them; `npm run dist`
 * (scripts/dist.mjs) reads them back from the generated files. A fork that publishes elsewhere changes
 * package.json's `repository` and runs `npm run gen`.
 */

/** What the schema takes from package.json. */
export interface PackageJson {
  version: string;
  description: string;
  license?: string;
  repository?: string | { type?: string; url: string };
}

export interface Release {
  /** `https://github.com/<owner>/<name>`. */
  repository: string;
  /**
   * `github://api.github.com/<owner>/<name>`: the engine fetches the asset
   * `pulumi-resource-sandbox-v<version>-<os>-<arch>.tar.gz` of the repository's release `v<version>`.
   */
  pluginDownloadURL: string;
  /**
   * `github.com/<owner>/<name>/sdks/go`: the Go SDK is the module in the repository's folder sdks/go,
   * which `go get` resolves from the tag `sdks/go/v<version>` (Go's rule for a module in a subfolder).
   */
  goModule: string;
}

const GITHUB = /^(?:git\+)?https:\/\/github\.com\/([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+?)(?:\.git)?\/?$/;

export function releaseOf(pkg: PackageJson): Release {
  const url = typeof pkg.repository === "string" ? pkg.repository : pkg.repository?.url;
  const m = GITHUB.exec(url ?? "");
  if (!m) {
    throw new Error(`package.json: "repository" must name the GitHub repository releases are published from (git+https://github.com/<owner>/<name>.git); it is ${JSON.stringify(url)}`);
  }
  const [, owner, name] = m;
  return {
    repository: `https://github.com/${owner}/${name}`,
    pluginDownloadURL: `github://api.github.com/${owner}/${name}`,
    goModule: `github.com/${owner}/${name}/sdks/go`.toLowerCase(),
  };
}
