/**
 * Auto-names two resources derive alike (issue "Identity that holds", item 1): one renamed away with
 * `aliases` keeps the key of its first URN, and a new resource declared under that name derives the
 * same key, so the same first auto-name. A finished create claims its object (provider/kinds/name-claims.ts);
 * `check` of a resource with no state then passes over a claimed name, and the create says so on the
 * resource's row. An object under the name that no finished create claimed (a killed run's) is adopted.
 */
import { describe, expect, test } from "vitest";
import type { ResourceKind } from "../../provider/kinds";
import { capturedStderr, checked, emulatorForFile, rest, runtime, volumeLeftByKilledRun } from "./harness";

const emu = emulatorForFile();
const stderr = capturedStderr();
const DOCKERFILE = "FROM ubuntu:22.04\nRUN mkdir -p /opt/tools\n";

interface Case {
  kind: ResourceKind;
  field: string;
  args: Record<string, unknown>;
  /** What the service holds under `name`, by its ID. */
  holder: (name: string) => Promise<string | undefined>;
}

const CASES: Case[] = [
  { kind: "Volume", field: "name", args: {}, holder: async (n) => emu().state.volumes().find((v) => v.name === n)?.volumeID },
  { kind: "Secret", field: "name", args: { value: "s3cr3t-value", __secrets: ["s3cr3t-value"] }, holder: async (n) => ((await (await rest(emu(), "GET", "/secrets")).json()) as { name: string; secretID: string }[]).find((x) => x.name === n)?.secretID },
  { kind: "Template", field: "alias", args: { dockerfile: DOCKERFILE }, holder: async (n) => emu().state.templates().find((t) => t.aliases.includes(n))?.templateID },
];

describe.each(CASES)("$kind", ({ kind, field, args, holder }) => {
  test("a new resource under a renamed one's first name gets the next name; the renamed one's object is untouched", async () => {
    const key = { __resource: `proj/dev/urn:pulumi:dev::proj::sandbox:${kind}::reused-${kind.toLowerCase()}` };
    const first = await checked(kind, { ...args, ...key });
    const made = await runtime.create(kind, first);
    expect(await holder(String(first[field]))).toBe(made.id);
    // The renamed resource keeps its state; a new one under the old name has none, only the same key.
    const again = await checked(kind, { ...args, ...key });
    expect(again[field]).toBe(`${String(first[field])}-2`);
    expect(again.__nonce).not.toBe(first.__nonce);
    stderr.clear();
    const second = await runtime.create(kind, again);
    expect(second.id).not.toBe(made.id);
    expect(await holder(String(first[field]))).toBe(made.id);
    expect(await holder(`${String(first[field])}-2`)).toBe(second.id);
    expect(stderr.text()).toContain(`warning: ${kind === "Template" ? "alias" : `${kind.toLowerCase()} name`} "${String(first[field])}" is held by another resource's ${kind.toLowerCase()}`);
    // The first resource's state still leads to its own object, as it was.
    expect((await runtime.read(kind, made.id, made.outs)).id).toBe(made.id);
    await runtime.remove(kind, second.id, second.outs);
    await runtime.remove(kind, made.id, made.outs);
  });

});

// A Secret's claim comes with its create (provider/kinds/secret/claim.ts): a killed run's is another resource's, passed over as above.
describe.each(CASES.filter((c) => c.kind !== "Secret"))("$kind", ({ kind, field, args }) => {
  test("what a killed run made under the name (no finished create claimed it) is adopted, then claimed", async () => {
    const key = { __resource: `proj/dev/urn:pulumi:dev::proj::sandbox:${kind}::killed-${kind.toLowerCase()}` };
    const killed = await checked(kind, { ...args, ...key });
    const left = await leftByKilledRun(kind, killed);
    const rerun = await checked(kind, { ...args, ...key });
    expect(rerun[field]).toBe(killed[field]);
    const made = await runtime.create(kind, rerun);
    expect(made.id).toBe(left);
    // Claimed now: a third resource under the same first name passes it over.
    expect((await checked(kind, { ...args, ...key }))[field]).toBe(`${String(killed[field])}-2`);
    await runtime.remove(kind, made.id, made.outs);
  });
});

/**
 * What a run killed inside its create leaves: a template with no claim (that comes at the create's
 * end); a volume with its pending mark (provider/kinds/volume/claim.ts), which the create's end removes.
 */
async function leftByKilledRun(kind: ResourceKind, inputs: Record<string, unknown>): Promise<string> {
  if (kind === "Volume") return volumeLeftByKilledRun(emu(), String(inputs.name), String(inputs.__nonce));
  // The current build system's first call: the template exists, its build waits for a start that never came.
  return ((await (await rest(emu(), "POST", "/v3/templates", { name: inputs.alias })).json()) as { templateID: string }).templateID;
}
