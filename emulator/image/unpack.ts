/**
 * Applies an image's layers, oldest first, to a directory that becomes a template's root, as a
 * container runtime stacks them: each entry replaces what lower layers left at its path, and OCI
 * whiteouts delete (`.wh.<name>`) or hide a directory's lower contents (`.wh..wh..opq`). Every write
 * goes through scoped-path.ts, so a layer cannot reach outside the directory. Ownership is kept when
 * the emulator runs as root (a sandbox's `app` user must own its home); otherwise the files are the
 * emulator user's. Devices and fifos are skipped: the sandbox gets its /dev from the host.
 */
import { createReadStream } from "node:fs";
import { chmod, chown, lchown, link, lstat, mkdir, open, readdir, rm, symlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { entryPath, placeIn } from "./scoped-path";
import { tarEntries, type TarEntry } from "./tar-stream";

export interface LayerFile {
  /** The verified blob on disk. */
  path: string;
  digest: string;
}

const OPAQUE = ".wh..wh..opq";
const WHITEOUT = ".wh.";

/** What one layer's application tracks: the paths it wrote (and their parents), the modes its directories get last. */
interface LayerRun {
  root: string;
  owned: boolean;
  /** Added to every owner id (see UnpackOptions). */
  idOffset: number;
  touched: Set<string>;
  dirs: Map<string, TarEntry>;
  /** Where each parent path resolved (see `place`). */
  places: Map<string, string>;
}

export interface UnpackOptions {
  /**
   * Added to each entry's uid and gid: a sandbox's ids are host ids shifted by its user namespace's
   * base (../envd/isolation/mode.ts), so the image's root must own its files as that base. Default 0.
   */
  idOffset?: number;
}

/** @throws Error naming the image, the layer and the entry that could not be applied. */
export async function unpackLayers(image: string, layers: LayerFile[], root: string, options: UnpackOptions = {}): Promise<void> {
  await mkdir(root, { recursive: true });
  for (const layer of layers) {
    try {
      await applyLayer(layer, root, options.idOffset ?? 0);
    } catch (err) {
      throw new Error(`image '${image}': layer ${layer.digest}: ${(err as Error).message}`, { cause: err });
    }
  }
}

async function applyLayer(layer: LayerFile, root: string, idOffset: number): Promise<void> {
  const run: LayerRun = { root, owned: process.getuid?.() === 0, idOffset, touched: new Set([root]), dirs: new Map(), places: new Map() };
  const source = await decompressed(layer.path);
  try {
    for await (const { entry, body } of tarEntries(source)) await applyEntry(run, entry, body);
  } finally {
    source.destroy();
  }
  // Modes last, so that a read-only directory of the layer still took its own entries.
  for (const [dir, entry] of [...run.dirs].reverse()) await setOwnerAndMode(run, dir, entry);
}

/** The layer's tar stream: gzip and plain tar are read, zstd is refused by name. */
async function decompressed(path: string): Promise<Readable> {
  const handle = await open(path, "r");
  const head = Buffer.alloc(4);
  await handle.read(head, 0, 4, 0).finally(() => handle.close());
  if (head.readUInt32BE(0) === 0x28b52ffd) throw new Error("the layer is zstd-compressed, which the emulator does not unpack (push it gzip-compressed)");
  const file = createReadStream(path);
  if (head[0] !== 0x1f || head[1] !== 0x8b) return file;
  const gunzip = createGunzip();
  file.on("error", (err) => gunzip.destroy(err));
  gunzip.on("close", () => file.destroy());
  return file.pipe(gunzip);
}

async function applyEntry(run: LayerRun, entry: TarEntry, body: AsyncIterable<Buffer>): Promise<void> {
  const rel = entryPath(entry.path);
  if (rel === "") return;
  if (rel.split("/").pop()!.startsWith(WHITEOUT)) return whiteout(run, rel);
  const { dir, name } = await place(run, rel, true);
  const dest = join(dir, name);
  const existing = await lstat(dest).catch(() => undefined);
  if (existing && !(entry.type === "dir" && existing.isDirectory())) await remove(run, dest, existing.isFile());
  if (entry.type === "other") return;
  touch(run, dest);
  if (entry.type === "dir") {
    if (!existing?.isDirectory()) await mkdir(dest, { mode: 0o700 });
    run.dirs.set(dest, entry);
  } else if (entry.type === "symlink") {
    await symlink(entry.linkname, dest);
    if (run.owned) await lchown(dest, entry.uid + run.idOffset, entry.gid + run.idOffset);
  } else if (entry.type === "hardlink") {
    await link(await linkTarget(run, entry), dest);
  } else {
    await writeFile(run, dest, entry, body);
  }
}

/**
 * scoped-path.ts's placeIn, remembered by parent path for the layer: an image of thousands of files
 * otherwise costs an lstat per component of every path, each a round trip to the thread pool (most
 * of an unpack's time in bench section 11). What a parent resolved to stays a real directory inside
 * the tree until something that could be on its way (a directory or a link) is removed: `remove`
 * then forgets every remembered place. Nothing else changes a resolved path: an entry is only ever
 * written where nothing is, after such a removal.
 */
async function place(run: LayerRun, rel: string, create: boolean): Promise<{ dir: string; name: string }> {
  const cut = rel.lastIndexOf("/");
  const parent = cut < 0 ? "" : rel.slice(0, cut);
  const known = run.places.get(parent);
  if (known !== undefined) return { dir: known, name: rel.slice(cut + 1) };
  const found = await placeIn(run.root, rel, create);
  run.places.set(parent, found.dir);
  return found;
}

/** `.wh.<name>` removes what lower layers put at `<name>`; `.wh..wh..opq` empties its directory of them. A whiteout in a directory no layer made has nothing to hide. */
async function whiteout(run: LayerRun, rel: string): Promise<void> {
  const at = await place(run, rel, false).catch(() => undefined);
  if (!at) return;
  if (at.name === OPAQUE) return clearLower(run, at.dir);
  await remove(run, join(at.dir, at.name.slice(WHITEOUT.length)));
}

/** The existing file, inside the tree, a hardlink entry names. */
async function linkTarget(run: LayerRun, entry: TarEntry): Promise<string> {
  const rel = entryPath(entry.linkname);
  const { dir, name } = await place(run, rel, false);
  const target = join(dir, name);
  const info = await lstat(target).catch(() => undefined);
  if (!info || info.isDirectory()) throw new Error(`entry '${entry.path}' links to '${entry.linkname}', which is not a file of the tree`);
  return target;
}

/** A new file (never through a link: `wx` after the removal above), owner and mode set after the bytes. */
async function writeFile(run: LayerRun, dest: string, entry: TarEntry, body: AsyncIterable<Buffer>): Promise<void> {
  const file = await open(dest, "wx", 0o600);
  try {
    for await (const chunk of body) await file.write(chunk);
    if (run.owned) await file.chown(entry.uid + run.idOffset, entry.gid + run.idOffset);
    // After chown, which clears setuid and setgid.
    await file.chmod(entry.mode);
    await file.utimes(entry.mtime, entry.mtime);
  } finally {
    await file.close();
  }
}

/**
 * Removes a path and the directory modes pending under it: were the path later made a link, a
 * pending chmod of `<path>/x` would follow it out of the tree. Unless the path was a plain file, every
 * remembered place goes too (`place`): a path resolved through it would now resolve elsewhere.
 */
async function remove(run: LayerRun, path: string, plainFile = false): Promise<void> {
  await rm(path, { recursive: true, force: true });
  if (!plainFile) run.places.clear();
  for (const dir of run.dirs.keys()) if (dir === path || dir.startsWith(`${path}/`)) run.dirs.delete(dir);
}

async function setOwnerAndMode(run: LayerRun, path: string, entry: TarEntry): Promise<void> {
  // chown and chmod follow links; only the directory the entry made is to change.
  if (!(await lstat(path)).isDirectory()) return;
  if (run.owned) await chown(path, entry.uid + run.idOffset, entry.gid + run.idOffset);
  await chmod(path, entry.mode);
}

function touch(run: LayerRun, path: string): void {
  for (let p = path; p.length >= run.root.length && !run.touched.has(p); p = dirname(p)) run.touched.add(p);
}

/** An opaque directory keeps only what this layer put in it: lower layers' contents go. */
async function clearLower(run: LayerRun, dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if (!run.touched.has(path)) await remove(run, path);
    else if ((await lstat(path)).isDirectory()) await clearLower(run, path);
  }
}
