/**
 * Where a volume's seed comes from: a local directory (`content.path`), or a Pulumi archive
 * (`content.archive`). Both front ends receive an archive in the engine's wire form, never as
 * @pulumi/pulumi's classes: the dynamic-provider host and the plugin server both hand the provider
 * `Struct.toJavaScript()` of the request. An archive is `{[sig]: archiveSig, path | assets | uri}`, and
 * each of an AssetArchive's entries is an asset `{[sig]: assetSig, path | text | uri}` or an archive.
 * Supported: a FileArchive of a directory, and an AssetArchive of FileAssets, StringAssets and
 * FileArchives of directories. Not: remote archives and assets (the provider would fetch them at every
 * preview), and FileArchives of .zip/.tar files (unpacking them is not worth its code here: give the
 * directory they were made from).
 */
import { specialArchiveSig, specialAssetSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { SeedCollector, type SeedReading } from "./content-seed";

type Obj = Record<string, unknown>;

/** `content` before `check` adds the manifest. */
export interface ContentSource {
  path?: string;
  archive?: unknown;
  target: string;
}

const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** Whether `value` is an archive in the engine's wire form. */
export function isArchive(value: unknown): boolean {
  return isObj(value) && value[specialSigKey] === specialArchiveSig;
}

function isAsset(value: unknown): value is Obj {
  return isObj(value) && value[specialSigKey] === specialAssetSig;
}

/** The seed `content` stands for: its files by volume path, where each comes from, and its problems. */
export function readContent(content: ContentSource, cwd = process.cwd()): SeedReading {
  const seed = new SeedCollector(content.target);
  if (content.path !== undefined) seed.directory(content.path, "", cwd);
  else addArchive(seed, content.archive as Obj, "", cwd);
  return seed.finish();
}

function addArchive(seed: SeedCollector, archive: Obj, under: string, cwd: string): void {
  const at = under === "" ? "the archive" : under;
  if (typeof archive.uri === "string") return seed.problem(`${at}: a RemoteArchive is not supported (the provider would fetch it at every preview); download it and give the directory`);
  if (typeof archive.path === "string") {
    if (/\.(zip|jar|tar|tgz|tar\.gz)$/i.test(archive.path)) {
      return seed.problem(`${at}: a FileArchive of a .zip or .tar file is not supported; give the directory it was made from`);
    }
    return seed.directory(archive.path, under, cwd);
  }
  if (!isObj(archive.assets)) return seed.problem(`${at}: an archive must have a path (FileArchive) or assets (AssetArchive)`);
  for (const name of Object.keys(archive.assets).sort()) {
    const entry = archive.assets[name];
    const rel = cleanName(name);
    if (rel === undefined) {
      seed.problem(`${at}: entry ${JSON.stringify(name)} must be a relative path without '.', '..' or empty parts`);
      continue;
    }
    const path = under === "" ? rel : `${under}/${rel}`;
    if (isArchive(entry)) addArchive(seed, entry as Obj, path, cwd);
    else if (!isAsset(entry)) seed.problem(`${path}: an AssetArchive entry must be an asset or an archive`);
    else if (typeof entry.text === "string") seed.bytes(path, new TextEncoder().encode(entry.text));
    else if (typeof entry.path === "string") seed.file(path, entry.path, cwd);
    else seed.problem(`${path}: a RemoteAsset is not supported (the provider would fetch it at every preview)`);
  }
}

/** An AssetArchive entry's name as a clean relative path, or undefined when it is not one. */
function cleanName(name: string): string | undefined {
  const parts = name.split("/");
  return name.startsWith("/") || parts.some((p) => p === "" || p === "." || p === "..") ? undefined : name;
}
