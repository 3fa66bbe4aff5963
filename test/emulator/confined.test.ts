/**
 * The emulator's confined file access (emulator/confined): paths walked inside a tree as its own
 * kernel would (links from the tree's root, `..` stopping there, loops refused), and changes made
 * through the open dir that holds an entry, so that a dir swapped for a link to the host between
 * finding a path and acting on it (a sandbox racing the API) changes nothing outside.
 */
import { chmodSync, constants, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chmodAt, chownAt, openAt, removeAt, renameAt } from "../../emulator/confined/ops";
import { removeTreeSync } from "../../emulator/confined/remove-tree";
import { locate, locateDir, type Layout } from "../../emulator/confined/walk";

let tree = "";
let host = "";
let layout: Layout;

beforeEach(() => {
  tree = mkdtempSync(join(tmpdir(), "confined-tree-"));
  host = mkdtempSync(join(tmpdir(), "confined-host-"));
  writeFileSync(join(host, "secret"), "the host's");
  chmodSync(join(host, "secret"), 0o600);
  mkdirSync(join(tree, "d"));
  writeFileSync(join(tree, "d", "f"), "inside");
  layout = { root: tree };
});
afterEach(() => {
  rmSync(tree, { recursive: true, force: true });
  rmSync(host, { recursive: true, force: true });
});

const hostUnchanged = () => {
  expect(readFileSync(join(host, "secret"), "utf8")).toBe("the host's");
  expect(statSync(join(host, "secret")).mode & 0o7777).toBe(0o600);
};

describe("locate", () => {
  it("follows an absolute link from the tree's root and clamps `..` at it", async () => {
    symlinkSync("/d", join(tree, "abs"));
    symlinkSync("../../../../../../d", join(tree, "climb"));
    for (const p of ["/abs/f", "/climb/f", "/../../d/f"]) {
      const at = await locate(layout, p, { followLast: true });
      expect({ path: at.path, name: at.name }).toEqual({ path: "/d/f", name: "f" });
      await at.close();
    }
  });

  it("a link to a host path names that path in the tree", async () => {
    symlinkSync(host, join(tree, "out"));
    await expect(locate(layout, "/out/secret")).rejects.toMatchObject({ code: "ENOENT", message: `ENOENT: /${host.split("/")[1]}` });
    mkdirSync(join(tree, host), { recursive: true });
    writeFileSync(join(tree, host, "secret"), "the tree's");
    const at = await locate(layout, "/out/secret");
    expect(at.path).toBe(`${host}/secret`);
    expect(readFileSync(at.dir.at(at.name), "utf8")).toBe("the tree's");
    await at.close();
  });

  it("the last link is followed only when asked; a loop is ELOOP", async () => {
    symlinkSync("d/f", join(tree, "l"));
    const link = await locate(layout, "/l");
    expect(lstatSync(link.dir.at(link.name)).isSymbolicLink()).toBe(true);
    await link.close();
    symlinkSync("/loop", join(tree, "loop"));
    await expect(locate(layout, "/loop", { followLast: true })).rejects.toMatchObject({ code: "ELOOP" });
  });

  it("an overlay lists both dirs, the first winning", async () => {
    const lower = mkdtempSync(join(tmpdir(), "confined-lower-"));
    try {
      mkdirSync(join(tree, "m"));
      writeFileSync(join(tree, "m", "a"), "upper");
      writeFileSync(join(lower, "a"), "lower");
      writeFileSync(join(lower, "b"), "lower");
      const over: Layout = { root: tree, mountAt: (p) => (p === "/mnt" ? { dirs: [join(tree, "m"), lower], readOnly: true } : undefined) };
      const dir = await locateDir(over, "/mnt");
      expect(dir.overlay).toHaveLength(2);
      expect(dir.readOnly).toBe(true);
      await dir.close();
      for (const [name, text] of [["a", "upper"], ["b", "lower"]]) {
        const at = await locate(over, `/mnt/${name}`);
        expect(readFileSync(at.dir.at(at.name), "utf8")).toBe(text);
        await at.close();
      }
    } finally {
      rmSync(lower, { recursive: true, force: true });
    }
  });
});

describe("acting on what was found, after its dir was swapped for a link to the host", () => {
  /** Finds /d/f, then moves d away and puts a link to the host dir in its place. */
  const raced = async () => {
    const at = await locate(layout, "/d/f");
    renameSync(join(tree, "d"), join(tree, "moved"));
    symlinkSync(host, join(tree, "d"));
    writeFileSync(join(host, "f"), "the host's");
    chmodSync(join(host, "f"), 0o600);
    return at;
  };

  it("writes land in the dir that was found", async () => {
    const at = await raced();
    const handle = await openAt(at, constants.O_WRONLY | constants.O_TRUNC);
    await handle.writeFile("written");
    await handle.close();
    await at.close();
    expect(readFileSync(join(tree, "moved", "f"), "utf8")).toBe("written");
    expect(readFileSync(join(host, "f"), "utf8")).toBe("the host's");
  });

  it("chmod, chown, rename and remove too", async () => {
    const at = await raced();
    await chmodAt(at, 0o666);
    await chownAt(at, 4242, 4242);
    expect(statSync(join(tree, "moved", "f")).mode & 0o777).toBe(0o666);
    await renameAt(at, { ...at, name: "g" });
    await removeAt({ ...at, name: "g" });
    await at.close();
    expect(existsSync(join(tree, "moved", "g"))).toBe(false);
    expect(statSync(join(host, "f"))).toMatchObject({ uid: process.getuid!(), mode: 0o100600 });
    hostUnchanged();
  });

  it("chmod of a link is refused, never passed to its target", async () => {
    symlinkSync(join(host, "secret"), join(tree, "d", "l"));
    const at = await locate(layout, "/d/l");
    await expect(chmodAt(at, 0o666)).rejects.toMatchObject({ code: expect.stringMatching(/^(EOPNOTSUPP|ENOTSUP|ELOOP)$/) });
    await at.close();
    hostUnchanged();
  });

  it("removing a tree removes a link in it, not what the link points to", async () => {
    symlinkSync(host, join(tree, "d", "out"));
    const at = await locate(layout, "/d");
    await removeAt(at);
    await at.close();
    expect(existsSync(join(tree, "d"))).toBe(false);
    hostUnchanged();
  });
});

describe("removeTreeSync (a killed sandbox's root, a deleted volume)", () => {
  it("removes the tree and the links in it, never what they point to; a root that is a link is unlinked", () => {
    symlinkSync(host, join(tree, "d", "out"));
    symlinkSync(join(host, "secret"), join(tree, "f-out"));
    mkdirSync(join(tree, "d", "deep", "er"), { recursive: true });
    const linkedRoot = `${tree}-as-link`;
    symlinkSync(host, linkedRoot);
    removeTreeSync(linkedRoot);
    expect(existsSync(linkedRoot)).toBe(false);
    removeTreeSync(tree);
    expect(existsSync(tree)).toBe(false);
    hostUnchanged();
    removeTreeSync(tree); // gone already: nothing to do
  });
});
