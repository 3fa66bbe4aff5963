/**
 * Adding a resource is one folder and its line in each of the two lists, its spec's and its
 * definition's (CONTRIBUTING.md, "Adding a resource"). In a copy of the project, the fixture kind
 * `Note` (./fixtures/note/: a spec, handlers on a directory of JSON files, a derivation) is copied to
 * provider/kinds/note/ and listed in provider/kinds/specs.ts and provider/kinds/index.ts, and nothing
 * else is edited by hand. Then `npm run gen`'s steps give it a class, a place in
 * schema.json and its page (docs/note.md, started with its reference), and both front ends serve it
 * over gRPC as the engine drives them: the dynamic provider in @pulumi/pulumi's host, and the native
 * plugin.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { providerText } from "../../provider/handle";
import type { ResourceKind } from "../../provider/kinds";
import { startHost, type ProviderHost } from "./host";
import { makeProject, REPO, type Project } from "./project";

type Obj = Record<string, unknown>;
/** A step of `npm run gen` (plain ESM scripts), from the copy: the copy's own generators. */
const genStep = (root: string, script: string) => import(join(root, "scripts", script)) as Promise<{ generate(root: string, out: string): void }>;

const REGISTRY_IMPORT = 'import { volumeKind } from "./volume";\n';
const REGISTRY_LAST = "  TemplateTag: templateTagKind,\n";
const SPECS_IMPORT = 'import { volumeSpec } from "./volume/spec";\n';
const SPECS_LAST = "  TemplateTag: templateTagSpec,\n";

let copy: string;
let store: string;
let project: Project | undefined;

/** The project as a contributor has it, plus the Note folder and its two lines. */
function copyWithNote(): string {
  const dir = mkdtempSync(join(tmpdir(), "kind-folder-"));
  // docs/ and examples/ too: `npm run gen` splices the examples into the registry pages.
  for (const part of ["provider", "sdk", "scripts", "bin", "docs", "examples", "README.md", "package.json", "tsconfig.json", "tsconfig.build.json"]) cpSync(join(REPO, part), join(dir, part), { recursive: true, filter: notInstalled });
  symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"), "dir");
  cpSync(join(__dirname, "fixtures", "note"), join(dir, "provider", "kinds", "note"), { recursive: true });
  const registry = join(dir, "provider", "kinds", "index.ts");
  const text = readFileSync(registry, "utf8");
  expect(text).toContain(REGISTRY_IMPORT);
  expect(text).toContain(REGISTRY_LAST);
  writeFileSync(registry, text.replace(REGISTRY_IMPORT, `${REGISTRY_IMPORT}import { noteKind } from "./note";\n`).replace(REGISTRY_LAST, `${REGISTRY_LAST}  Note: noteKind,\n`));
  const specs = join(dir, "provider", "kinds", "specs.ts");
  const specsText = readFileSync(specs, "utf8");
  expect(specsText).toContain(SPECS_IMPORT);
  expect(specsText).toContain(SPECS_LAST);
  writeFileSync(specs, specsText.replace(SPECS_IMPORT, `${SPECS_IMPORT}import { noteSpec } from "./note/spec";\n`).replace(SPECS_LAST, `${SPECS_LAST}  Note: noteSpec,\n`));
  return dir;
}

function typecheck(dir: string, files: string[]): string {
  writeFileSync(join(dir, "tsconfig.probe.json"), JSON.stringify({ extends: "./tsconfig.json", include: [], files }));
  try {
    execFileSync(join(REPO, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.probe.json", "--noEmit"], { cwd: dir, encoding: "utf8", stdio: "pipe" });
    return "";
  } catch (err) {
    return String((err as { stdout?: string }).stdout ?? err);
  }
}

beforeAll(async () => {
  copy = copyWithNote();
  store = mkdtempSync(join(tmpdir(), "note-store-"));
  (await genStep(copy, "gen-class-shapes.mjs")).generate(copy, copy);
}, 120_000);

afterAll(() => {
  project?.remove();
  for (const dir of [copy, store]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a kind added as a folder and a registry line", () => {
  test("has a class, typed from its spec: a program compiles against it, and a wrong input does not", () => {
    writeFileSync(join(copy, "probe.ts"), [
      'import type * as pulumi from "@pulumi/pulumi";',
      'import { Note } from "./provider";',
      'const note = new Note("n", { title: "t", text: "hello there" });',
      "export const id: pulumi.Output<string> = note.noteID;",
      "export const words: pulumi.Output<number> = note.words;",
      "",
    ].join("\n"));
    expect(typecheck(copy, ["probe.ts", "provider/index.ts", "provider/runtime/index.ts", "provider/plugin/serve.ts"])).toBe("");
    writeFileSync(join(copy, "wrong.ts"), 'import { Note } from "./provider";\nexport const note = new Note("n", { title: "t", txt: "typo" });\n');
    expect(typecheck(copy, ["wrong.ts"])).toMatch(/wrong\.ts.*'txt' does not exist/);
  }, 120_000);

  test("is in schema.json and on its own page, started with the reference, with its spec's docs and replace rule", async () => {
    const out = mkdtempSync(join(tmpdir(), "kind-folder-gen-"));
    try {
      (await genStep(copy, "gen-schema.mjs")).generate(copy, out);
      const note = JSON.parse(readFileSync(join(out, "schema.json"), "utf8")).resources["sandbox:index:Note"];
      expect(note.description).toBe("A note kept in a local directory: the fixture of a kind added as one folder.");
      expect(note.inputProperties.title).toMatchObject({ type: "string", replaceOnChanges: true });
      expect(note.inputProperties.text.replaceOnChanges).toBeUndefined();
      expect(note.properties.noteID).toMatchObject({ type: "string" });
      const page = readFileSync(join(out, "docs", "note.md"), "utf8");
      expect(page).toMatch(/^# Note\n\n<!-- BEGIN GENERATED REFERENCE -->/);
      expect(page).toMatch(/\| `title` \| string \|.*The note's title/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("the tests that cover every kind", () => {
  // Run in the copy, unedited: a list of kinds written out in one of them (as schema.test.ts once had)
  // fails here, since the Note is in none. The copy's schema.json and docs pages are regenerated first,
  // as `npm run gen` would.
  const COVERING = ["test/unit/schema.test.ts"];

  test("pass with the Note added and no edit of theirs", async () => {
    (await genStep(copy, "gen-schema.mjs")).generate(copy, copy);
    cpSync(join(REPO, "test", "data"), join(copy, "test", "data"), { recursive: true });
    for (const file of COVERING) cpSync(join(REPO, file), join(copy, file));
    copyFileSync(join(REPO, "vitest.config.mts"), join(copy, "vitest.config.mts"));
    const run = () => execFileSync(join(REPO, "node_modules", ".bin", "vitest"), ["run", "--project", "fast", ...COVERING], { cwd: copy, encoding: "utf8", stdio: "pipe" });
    let failure = "";
    try {
      run();
    } catch (err) {
      failure = `${(err as { stdout?: string }).stdout ?? ""}${(err as { stderr?: string }).stderr ?? ""}` || String(err);
    }
    expect(failure).toBe("");
  }, 180_000);
});

describe.each(["dynamic", "plugin"] as const)("the %s front end serves it", (end) => {
  let host: ProviderHost;
  const urn = end === "dynamic" ? "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/sandbox:Note::n" : "urn:pulumi:dev::proj::sandbox:index:Note::n";
  // The dynamic provider's bag carries the provider text the class writes (provider/handle.ts).
  const bag = (props: Obj): Obj => (end === "dynamic" ? { ...props, __provider: providerText("Note" as ResourceKind) } : props);

  beforeAll(async () => {
    project ??= makeProject(copy);
    const bin = join(project.dir, "node_modules", "pulumi-sandbox", "bin");
    mkdirSync(bin, { recursive: true });
    copyFileSync(join(REPO, "bin", "pulumi-resource-sandbox"), join(bin, "pulumi-resource-sandbox"));
    host = await startHost({ cwd: project.dir, project: "proj", env: { NOTE_STORE: store }, ...(end === "plugin" ? { plugin: join(bin, "pulumi-resource-sandbox") } : {}) });
    await host.configure({});
  }, 180_000);

  afterAll(async () => {
    await host?.close();
  });

  test("check derives, create writes, diff plans by the spec, update in place, read, delete", async () => {
    const bad = await host.check(urn, {}, bag({ title: "", text: "x" }));
    expect(bad.failures.map((f) => f.reason)).toEqual(["title: must not be empty"]);
    const { inputs } = await host.check(urn, {}, bag({ title: "todo", text: "buy milk" }));
    expect(inputs).toMatchObject({ title: "todo", text: "buy milk", words: 2 });
    const made = await host.create(urn, inputs);
    expect(made.properties).toMatchObject({ noteID: made.id, words: 2 });
    expect(JSON.parse(readFileSync(join(store, `${made.id}.json`), "utf8"))).toEqual({ title: "todo", text: "buy milk" });

    const edited = (await host.check(urn, made.properties, bag({ title: "todo", text: "buy oat milk" }))).inputs;
    expect(await host.diff(made.id, urn, made.properties, edited)).toMatchObject({ changes: "some", replaces: [] });
    const retitled = (await host.check(urn, made.properties, bag({ title: "done", text: "buy milk" }))).inputs;
    expect((await host.diff(made.id, urn, made.properties, retitled)).replaces).toEqual(["title"]);

    const updated = await host.update(made.id, urn, made.properties, edited);
    expect(updated.properties).toMatchObject({ noteID: made.id, text: "buy oat milk", words: 3 });
    expect((await host.read(made.id, urn, updated.properties)).id).toBe(made.id);
    await host.delete(made.id, urn, updated.properties);
    expect(readdirSync(store).filter((f) => f.startsWith(made.id))).toEqual([]);
    expect((await host.read(made.id, urn, updated.properties)).id).toBe("");
  }, 60_000);
});

/** Leaves out what an install put in the tree (an example's node_modules or venv): the generator reads none of it. */
function notInstalled(src: string): boolean {
  return !/[\\/](?:node_modules|venv|\.venv)(?:[\\/]|$)/.test(src);
}
