/**
 * The filesystem client against the emulator, under each codec: entries made by real commands in a
 * sandbox created through the REST API, listed, stat'ed, moved and removed over the wire.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { RPC_CODECS } from "../../sdk/config";
import type { SandboxError } from "../../sdk/errors";
import { FilesystemClient } from "../../sdk/in-sandbox/filesystem";
import { ProcessClient } from "../../sdk/in-sandbox/process";
import { createSandbox } from "./emulator-sandbox";

let emu: Emulator;
let fs: FilesystemClient;
let pc: ProcessClient;

beforeAll(async () => {
  emu = await createEmulator();
});
afterAll(() => emu.close());

const failure = (p: Promise<unknown>) => p.then(() => expect.unreachable("expected a failure"), (e: unknown) => e as SandboxError);

describe.each(RPC_CODECS)("codec %s", (rpcCodec) => {
  beforeAll(async () => {
    const target = await createSandbox(emu, { rpcCodec });
    fs = new FilesystemClient(target);
    pc = new ProcessClient(fs.rpc); // one transport for both
    expect(fs.rpc.codec).toBe(rpcCodec);
    await pc.run("mkdir -p tree/a/deep tree/b && printf 12345 > tree/a/five.txt && echo hi > tree/top.txt && ln -s top.txt tree/link");
  });

  describe("listDir", () => {
    it("lists one level by default, with sizes as numbers and types as names", async () => {
      const entries = await fs.listDir("/home/user/tree");
      // A link's type is the server's call (envd reports what it resolves to); its target is always given.
      expect(entries.filter((e) => e.name !== "link").map((e) => [e.path, e.type]).sort()).toEqual([
        ["/home/user/tree/a", "dir"],
        ["/home/user/tree/b", "dir"],
        ["/home/user/tree/top.txt", "file"],
      ]);
      const top = entries.find((e) => e.name === "top.txt");
      expect(top).toMatchObject({ size: 3, type: "file" });
      expect(typeof top?.size).toBe("number");
      expect(top?.modifiedTime).toBeInstanceOf(Date);
      expect(entries.find((e) => e.name === "link")?.symlinkTarget).toMatch(/top\.txt$/);
    });

    it("descends to depth 2", async () => {
      const paths = (await fs.listDir("/home/user/tree", { depth: 2 })).map((e) => e.path).sort();
      expect(paths).toEqual([
        "/home/user/tree/a",
        "/home/user/tree/a/deep",
        "/home/user/tree/a/five.txt",
        "/home/user/tree/b",
        "/home/user/tree/link",
        "/home/user/tree/top.txt",
      ]);
      const five = (await fs.listDir("/home/user/tree", { depth: 2 })).find((e) => e.name === "five.txt");
      expect(five?.size).toBe(5);
    });

    it("refuses a depth below 1 before sending anything", async () => {
      const err = await failure(fs.listDir("/home/user", { depth: 0 }));
      expect(err).toMatchObject({ code: "invalid_argument", message: "listDir depth must be a whole number of at least 1, got 0" });
    });

    it("reports a missing directory as not_found", async () => {
      const err = await failure(fs.listDir("/home/user/nope"));
      expect(err.code).toBe("not_found");
      expect(err.message).toMatch(/^ListDir \/home\/user\/nope on sandbox \w+ failed \(not_found\): /);
    });
  });

  describe("stat, makeDir, move, remove", () => {
    it("stats an entry", async () => {
      expect(await fs.stat("/home/user/tree/a/five.txt")).toMatchObject({ name: "five.txt", type: "file", size: 5 });
      expect(await fs.exists("/home/user/tree/a")).toBe(true);
      expect(await fs.exists("/home/user/tree/zzz")).toBe(false);
    });

    it("makes a directory once and reports an existing one as false", async () => {
      expect(await fs.makeDir("/home/user/made/inner")).toBe(true);
      expect(await fs.makeDir("/home/user/made/inner")).toBe(false);
      expect(await fs.stat("/home/user/made/inner")).toMatchObject({ type: "dir" });
    });

    it("moves and removes", async () => {
      await pc.run("echo bye > gone.txt");
      expect(await fs.move("/home/user/gone.txt", "/home/user/moved.txt")).toMatchObject({ path: "/home/user/moved.txt", type: "file" });
      await fs.remove("/home/user/moved.txt");
      const err = await failure(fs.stat("/home/user/moved.txt"));
      expect(err.code).toBe("not_found");
    });

    it("acts as the named user", async () => {
      expect(await fs.makeDir("/root/private", { user: "root" })).toBe(true);
      expect((await fs.listDir("/root", { user: "root" })).map((e) => e.name)).toContain("private");
    });
  });

  describe("secured sandbox", () => {
    it("lists with the access token and is refused without it", async () => {
      const secure = await createSandbox(emu, { secure: true, rpcCodec });
      expect(Array.isArray(await new FilesystemClient(secure).listDir("/home/user"))).toBe(true);
      const err = await failure(new FilesystemClient({ ...secure, envdAccessToken: undefined }).listDir("/home/user"));
      expect(err.code).toBe("unauthenticated");
      expect(err.message).toBe(
        `ListDir /home/user was refused by sandbox ${secure.sandboxID}: the access token is missing or wrong. The sandbox ` +
          "was created with secure: true; pass its envdAccessToken (sent as X-Access-Token).",
      );
    });
  });
});
