/**
 * The filesystem client's wire behaviour against the real Connect peer (test/sdk/envd-peer), under
 * each codec: the user, token and content-type headers of each call, the mapping of every FileType
 * name, int64 sizes, and a Connect error.
 */
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RPC_CODECS } from "../../sdk/config";
import { FilesystemClient } from "../../sdk/in-sandbox/filesystem";
import { ProcessClient } from "../../sdk/in-sandbox/process";
import { SandboxRpc } from "../../sdk/transport/rpc";
import { startPeer, type Peer } from "./envd-peer";

const ID = "sbxfs1";
const TOKEN = "fs-token-0123456789";
let peer: Peer;

beforeAll(async () => {
  peer = await startPeer({ sandboxID: ID, token: TOKEN });
  await mkdir(join(peer.root, "data", "dir"), { recursive: true });
  await writeFile(join(peer.root, "data", "five.txt"), "12345");
  await symlink("five.txt", join(peer.root, "data", "link"));
});
afterAll(() => peer.close());

describe.each(RPC_CODECS)("filesystem wire, codec %s", (rpcCodec) => {
  const options = () => ({ sandboxUrl: peer.url, rpcCodec });
  let fs: FilesystemClient;
  beforeAll(() => {
    fs = new FilesystemClient({ sandboxID: ID, envdAccessToken: TOKEN, options: options() });
  });

  it("maps each file type to its name and int64 sizes to numbers", async () => {
    const entries = await fs.listDir("/data");
    expect(entries.map((e) => [e.name, e.type, e.size])).toEqual([
      ["dir", "dir", expect.any(Number)],
      ["five.txt", "file", 5],
      ["link", "symlink", expect.any(Number)],
    ]);
    expect(entries[2]?.symlinkTarget).toBe("five.txt");
  });

  it("sends the user as Basic auth and the token on ListDir, Stat, MakeDir and Remove", async () => {
    await fs.listDir("/data", { user: "root" });
    await fs.stat("/data/five.txt", { user: "root" });
    await fs.makeDir("/data/new", { user: "root" });
    await fs.remove("/data/new", { user: "root" });
    for (const method of ["ListDir", "Stat", "MakeDir", "Remove"]) {
      const h = peer.lastHeaders(`/filesystem.Filesystem/${method}`);
      expect(h.authorization, method).toBe("Basic cm9vdDo=");
      expect(h["x-access-token"], method).toBe(TOKEN);
      expect(h["connect-protocol-version"], method).toBe("1");
      expect(h["keepalive-ping-interval"], method).toBeUndefined();
      expect(h["content-type"], method).toBe(rpcCodec === "binary" ? "application/proto" : "application/json");
    }
  });

  it("sends the depth it is given", async () => {
    const deep = await fs.listDir("/data", { depth: 3 });
    expect(deep.map((e) => e.path)).toEqual(["/data/dir", "/data/five.txt", "/data/link"]);
    await expect(fs.listDir("/data", { depth: 1.5 })).rejects.toMatchObject({ code: "invalid_argument" });
  });

  it("maps Connect errors: not_found, and already_exists as makeDir's false", async () => {
    const err = (await fs.stat("/data/missing").catch((e: unknown) => e)) as Error & { code: string; service: unknown };
    expect(err.code).toBe("not_found");
    expect(err.service).toEqual({ code: "not_found", message: "no such file or directory: /data/missing" });
    expect(await fs.exists("/data/missing")).toBe(false);
    expect(await fs.makeDir("/data/dir")).toBe(false);
  });

  it("shares one transport between the process and filesystem clients of a sandbox", async () => {
    const rpc = new SandboxRpc({ sandboxID: ID, envdAccessToken: TOKEN, options: options() });
    const files = new FilesystemClient(rpc);
    const procs = new ProcessClient(rpc);
    expect(files.rpc.transport).toBe(procs.rpc.transport);
    expect(rpc.codec).toBe(rpcCodec);
    expect((await procs.run("echo shared")).stdoutTail).toBe("shared\n");
    expect(await files.exists("/data/five.txt")).toBe(true);
  });
});
