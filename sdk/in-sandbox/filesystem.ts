/**
 * Files inside a sandbox (envd's `filesystem.Filesystem` service): list, stat, make, move, remove.
 * Entries come back as plain objects: `size` a number (int64 arrives as a JSON string), `type` a name.
 */
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { FileType, Filesystem, type EntryInfo as WireEntry } from "../gen/filesystem/filesystem_pb";
import { SandboxError } from "../errors";
import { toRpc, type RpcCallOptions, type SandboxRpc, type SandboxTarget } from "../transport/rpc";

/** Kind of a directory entry. `unknown` covers FILE_TYPE_UNSPECIFIED and kinds newer than this client. */
export type EntryType = "file" | "dir" | "symlink" | "unknown";

/** A file, directory or link in the sandbox. */
export interface EntryInfo {
  name: string;
  type: EntryType;
  /** Absolute sandbox path. */
  path: string;
  /** Bytes. */
  size: number;
  /** Unix mode bits (permissions and file type). */
  mode: number;
  /** rwx form, e.g. `-rw-r--r--`. */
  permissions: string;
  owner: string;
  group: string;
  modifiedTime?: Date | undefined;
  /** Where a symlink points. */
  symlinkTarget?: string | undefined;
  /** User extended attributes. */
  metadata: Record<string, string>;
}

/** Options of listDir. */
export interface ListDirOptions extends RpcCallOptions {
  /** Levels to descend: 1 lists the directory itself. Default 1; minimum 1. */
  depth?: number | undefined;
}

const TYPE_NAMES: Readonly<Record<number, EntryType>> = {
  [FileType.FILE]: "file",
  [FileType.DIRECTORY]: "dir",
  [FileType.SYMLINK]: "symlink",
};

/** Client of the filesystem service of one sandbox. Methods throw SandboxError (branch on `code`). */
export class FilesystemClient {
  readonly rpc: SandboxRpc;
  readonly #api;

  /** @param target the sandbox (ID, access token, options), or a SandboxRpc to share its transport. */
  constructor(target: SandboxTarget | SandboxRpc) {
    this.rpc = toRpc(target);
    this.#api = this.rpc.client(Filesystem);
  }

  /** Entries under `path`, down to `depth` levels (default 1). `not_found` if the path does not exist. */
  async listDir(path: string, opts: ListDirOptions = {}): Promise<EntryInfo[]> {
    const depth = opts.depth ?? 1;
    if (!Number.isInteger(depth) || depth < 1) {
      throw new SandboxError({ code: "invalid_argument", message: `listDir depth must be a whole number of at least 1, got ${depth}` });
    }
    const res = await this.rpc.unary(`ListDir ${path}`, () => this.#api.listDir({ path, depth }, this.rpc.callOptions(opts)));
    return res.entries.map(toEntry);
  }

  /** The entry at `path`; `not_found` if there is none. */
  async stat(path: string, opts: RpcCallOptions = {}): Promise<EntryInfo> {
    const res = await this.rpc.unary(`Stat ${path}`, () => this.#api.stat({ path }, this.rpc.callOptions(opts)));
    return toEntry(required(res.entry, `Stat ${path}`));
  }

  /** Whether `path` exists. */
  async exists(path: string, opts: RpcCallOptions = {}): Promise<boolean> {
    try {
      await this.stat(path, opts);
      return true;
    } catch (err) {
      if ((err as { code?: unknown }).code === "not_found") return false;
      throw err;
    }
  }

  /** Creates a directory and its parents; false (no error) when it already exists. */
  async makeDir(path: string, opts: RpcCallOptions = {}): Promise<boolean> {
    try {
      await this.rpc.unary(`MakeDir ${path}`, () => this.#api.makeDir({ path }, this.rpc.callOptions(opts)));
      return true;
    } catch (err) {
      if ((err as { code?: unknown }).code === "conflict") return false;
      throw err;
    }
  }

  /** Moves or renames `source` to `destination`; returns the moved entry. */
  async move(source: string, destination: string, opts: RpcCallOptions = {}): Promise<EntryInfo> {
    const what = `Move ${source} to ${destination}`;
    const res = await this.rpc.unary(what, () => this.#api.move({ source, destination }, this.rpc.callOptions(opts)));
    return toEntry(required(res.entry, what));
  }

  /** Removes a file or a directory with its contents. */
  async remove(path: string, opts: RpcCallOptions = {}): Promise<void> {
    await this.rpc.unary(`Remove ${path}`, () => this.#api.remove({ path }, this.rpc.callOptions(opts)));
  }
}

function required<T>(entry: T | undefined, what: string): T {
  if (entry) return entry;
  throw new SandboxError({ code: "invalid_response", message: `${what}: the sandbox answered without an entry.` });
}

function toEntry(e: WireEntry): EntryInfo {
  return {
    name: e.name,
    type: TYPE_NAMES[e.type] ?? "unknown",
    path: e.path,
    size: Number(e.size),
    mode: e.mode,
    permissions: e.permissions,
    owner: e.owner,
    group: e.group,
    modifiedTime: e.modifiedTime ? timestampDate(e.modifiedTime) : undefined,
    symlinkTarget: e.symlinkTarget,
    metadata: { ...e.metadata },
  };
}
